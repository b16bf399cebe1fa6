import { randomUUID } from 'node:crypto';
import { ApiTokenIssued } from '@pf/platform/events/accounts';
import type { Identity } from '@pf/platform/identity';
import { newEvent } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { authoriseChannelAdministration } from '../domain/authorisation';
import type { ApiTokenInfo } from '../domain/model';
import { generateApiToken } from '../domain/tokens';
import { insertToken, lockChannel, revokeLiveToken } from '../repositories/accounts-repository';
import { changeWithEvents, nowOf, type AccountsDeps } from './deps';

export interface IssuedApiToken {
  /** The token itself: returned here once and stored nowhere (only its SHA-256 is). */
  token: string;
  apiToken: ApiTokenInfo;
  revokedTokenId: string | null;
}

/**
 * Issues a new API token for a channel and revokes the previous one in the same transaction
 * (`api-token.issued` with `revokedTokenId`). The channel row is locked first, so concurrent
 * issues run one after the other and exactly one token stays live; the partial unique index
 * `api_token_one_live_per_channel` backs that up.
 *
 * The Standard channel cannot be given a token: a `validation-failed` Problem (422) naming
 * `channelId`, because no caller may do it (it is the request that is wrong, not the caller).
 */
export async function issueApiToken(deps: AccountsDeps, identity: Identity, channelId: string): Promise<IssuedApiToken> {
  return changeWithEvents(deps, async (tx) => {
    const channel = await lockChannel(tx, channelId);
    authoriseChannelAdministration(identity, channelId, channel);
    if (channel!.standard) {
      throw Problem.validation(
        [{ property: 'channelId', message: 'The Standard channel cannot be given an API token.' }],
        'The Standard channel cannot be given an API token.',
      );
    }
    const now = nowOf(deps);
    const revokedTokenId = await revokeLiveToken(tx, channelId, now);
    const generated = generateApiToken();
    const apiToken = await insertToken(tx, {
      id: randomUUID(),
      channelId,
      tokenSha256: generated.sha256,
      prefix: generated.prefix,
      createdAt: now,
    });
    return {
      result: { token: generated.token, apiToken, revokedTokenId },
      events: [
        newEvent(ApiTokenIssued, channelId, {
          tokenId: apiToken.id,
          channelId,
          teamCode: channel!.teamCode,
          revokedTokenId,
        }),
      ],
    };
  });
}
