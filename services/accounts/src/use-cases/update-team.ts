import { TeamUpdated } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { authoriseUpdateTeam } from '../domain/authorisation';
import { nameViolations } from '../domain/codes';
import { teamState, type Team } from '../domain/model';
import { lockTeam, updateTeam as saveTeam } from '../repositories/accounts-repository';
import { changeWithEvents, type AccountsDeps } from './deps';

export interface UpdateTeamInput {
  name?: string | null;
  active?: boolean | null;
}

/**
 * Renames and/or (de)activates a team; `team.updated` when something changed, nothing written
 * otherwise. Renaming: the team's back-office or an operator; `active`: operators only.
 */
export async function updateTeam(deps: AccountsDeps, identity: Identity, code: string, input: UpdateTeamInput): Promise<Team> {
  return changeWithEvents(deps, async (tx) => {
    const team = await lockTeam(tx, code);
    authoriseUpdateTeam(identity, code, team, { name: input.name != null, active: input.active != null });
    const current = team!;
    const violations = input.name != null ? nameViolations(input.name, 'input.name') : [];
    if (violations.length > 0) throw Problem.validation(violations);
    const change: { name?: string; active?: boolean } = {};
    if (input.name != null && input.name.trim() !== current.name) change.name = input.name.trim();
    if (input.active != null && input.active !== current.active) change.active = input.active;
    if (Object.keys(change).length === 0) return { result: current, events: [] };
    const updated = await saveTeam(tx, code, change);
    const at = await databaseClock(tx);
    return { result: updated, events: [outgoing(TeamUpdated, TeamUpdated.create(updated.code, teamState(updated), at))] };
  });
}
