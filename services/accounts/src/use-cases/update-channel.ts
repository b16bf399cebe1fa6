import { ChannelUpdated } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { authoriseChannelAdministration } from '../domain/authorisation';
import { nameViolations } from '../domain/codes';
import { channelState, type Channel } from '../domain/model';
import { findChannel, lockChannel, updateChannel as saveChannel } from '../repositories/accounts-repository';
import { changeWithEvents, type AccountsDeps } from './deps';

export interface UpdateChannelInput {
  name?: string | null;
  active?: boolean | null;
}

/**
 * Renames and/or (de)activates a channel; `channel.updated` when something changed. Deactivating
 * keeps the token: the edge then answers 403 channel-inactive (not 401) as the contract requires.
 */
export async function updateChannel(deps: AccountsDeps, identity: Identity, id: string, input: UpdateChannelInput): Promise<Channel> {
  return changeWithEvents(deps, async (tx) => {
    authoriseChannelAdministration(identity, id, await lockChannel(tx, id));
    const current = (await findChannel(tx, id))!;
    const violations = input.name != null ? nameViolations(input.name, 'input.name') : [];
    if (violations.length > 0) throw Problem.validation(violations);
    const change: { name?: string; active?: boolean } = {};
    if (input.name != null && input.name.trim() !== current.name) change.name = input.name.trim();
    if (input.active != null && input.active !== current.active) change.active = input.active;
    if (Object.keys(change).length === 0) return { result: current, events: [] };
    const updated = await saveChannel(tx, id, change);
    const at = await databaseClock(tx);
    return { result: updated, events: [outgoing(ChannelUpdated, ChannelUpdated.create(updated.id, channelState(updated), at))] };
  });
}
