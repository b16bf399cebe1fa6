import { ChannelCreated } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { Problem, type Violation } from '@pf/platform/problems';
import { teamForNewChannel, teamNotFound } from '../domain/authorisation';
import { channelCodeViolations, channelIdOf, nameViolations } from '../domain/codes';
import { channelState, type Channel } from '../domain/model';
import { findTeam, insertChannel, isUniqueViolation } from '../repositories/accounts-repository';
import { changeWithEvents, type AccountsDeps } from './deps';

export interface CreateChannelInput {
  code: string;
  name: string;
  /** Operators name the team; a back-office user's own team is implied. */
  teamCode?: string | null;
}

/** Adds a (non-Standard) channel to a team, with `channel.created` in the outbox. */
export async function createChannel(deps: AccountsDeps, identity: Identity, input: CreateChannelInput): Promise<Channel> {
  const teamCode = teamForNewChannel(identity, input.teamCode);
  const violations: Violation[] = [
    ...(teamCode === undefined ? [{ property: 'input.teamCode', message: 'Name the team the channel belongs to.' }] : []),
    ...channelCodeViolations(input.code, 'input.code'),
    ...nameViolations(input.name, 'input.name'),
  ];
  if (violations.length > 0 || teamCode === undefined) throw Problem.validation(violations);
  const id = channelIdOf(teamCode, input.code);
  try {
    return await changeWithEvents(deps, async (tx) => {
      if (!(await findTeam(tx, teamCode))) throw teamNotFound(teamCode);
      const channel = await insertChannel(tx, { id, teamCode, code: input.code, name: input.name.trim(), standard: false });
      const at = await databaseClock(tx);
      return { result: channel, events: [outgoing(ChannelCreated, ChannelCreated.create(channel.id, channelState(channel), at))] };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Problem('conflict', { detail: `Channel ${id} already exists.` });
    throw err;
  }
}
