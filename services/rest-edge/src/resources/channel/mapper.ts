import type { ChannelFields } from './operation';

/** The channel resource (OpenAPI `Channel`): only its contract members, in contract order. */
export function toChannelResource(c: ChannelFields) {
  return { id: c.id, code: c.code, teamCode: c.teamCode, name: c.name, active: c.active };
}
