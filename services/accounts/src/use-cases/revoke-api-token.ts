import { ApiTokenRevoked } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { newEvent } from '@pf/platform/outbox/outbox';
import { authoriseChannelAdministration } from '../domain/authorisation';
import { lockChannel, revokeLiveToken } from '../repositories/accounts-repository';
import { changeWithEvents, nowOf, type AccountsDeps } from './deps';

/**
 * Revokes the channel's live token outright (`api-token.revoked`). Returns the id of the token it
 * revoked, null when there was none. Allowed on the Standard channel too, to clear a token stored
 * there before tokens were refused.
 */
export async function revokeApiToken(deps: AccountsDeps, identity: Identity, channelId: string): Promise<string | null> {
  return changeWithEvents(deps, async (tx) => {
    const channel = await lockChannel(tx, channelId);
    authoriseChannelAdministration(identity, channelId, channel);
    const tokenId = await revokeLiveToken(tx, channelId, nowOf(deps));
    if (!tokenId) return { result: null, events: [] };
    return {
      result: tokenId,
      events: [newEvent(ApiTokenRevoked, channelId, { tokenId, channelId, teamCode: channel!.teamCode })],
    };
  });
}
