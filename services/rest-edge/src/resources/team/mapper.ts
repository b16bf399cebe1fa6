import type { TeamFields } from './operation';

/** The team resource (OpenAPI `Team`). */
export function toTeamResource(t: TeamFields) {
  return { code: t.code, name: t.name, active: t.active };
}
