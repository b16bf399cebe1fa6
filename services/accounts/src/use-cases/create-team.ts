import { ChannelCreated, TeamCreated } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { authoriseCreateTeam } from '../domain/authorisation';
import { channelIdOf, nameViolations, STANDARD_CHANNEL_CODE, teamCodeViolations } from '../domain/codes';
import { channelState, teamState, type Team } from '../domain/model';
import { insertChannel, insertTeam, isUniqueViolation } from '../repositories/accounts-repository';
import { changeWithEvents, type AccountsDeps } from './deps';

export interface CreateTeamInput {
  code: string;
  name: string;
}

/** Name of the Standard channel created with every team; the team's back-office may rename it. */
export const STANDARD_CHANNEL_NAME = 'Standard';

/**
 * Creates a team and, in the same transaction, its Standard channel (`<code>-standard`), with
 * `team.created` and `channel.created` in the outbox. Platform operators only.
 */
export async function createTeam(deps: AccountsDeps, identity: Identity, input: CreateTeamInput): Promise<Team> {
  authoriseCreateTeam(identity);
  const violations = [...teamCodeViolations(input.code, 'input.code'), ...nameViolations(input.name, 'input.name')];
  if (violations.length > 0) throw Problem.validation(violations);
  const name = input.name.trim();
  try {
    return await changeWithEvents(deps, async (tx) => {
      const team = await insertTeam(tx, { code: input.code, name });
      const standard = await insertChannel(tx, {
        id: channelIdOf(team.code, STANDARD_CHANNEL_CODE),
        teamCode: team.code,
        code: STANDARD_CHANNEL_CODE,
        name: STANDARD_CHANNEL_NAME,
        standard: true,
      });
      const at = await databaseClock(tx);
      return {
        result: team,
        events: [
          outgoing(TeamCreated, TeamCreated.create(team.code, teamState(team), at)),
          outgoing(ChannelCreated, ChannelCreated.create(standard.id, channelState(standard), at)),
        ],
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new Problem('conflict', { detail: `A team with code ${input.code} already exists.` });
    }
    throw err;
  }
}
