import type { Identity } from '@pf/platform/identity';
import { authoriseTokenCheck } from '../domain/authorisation';
import type { ChannelTokenFacts } from '../domain/model';
import { normaliseSha256 } from '../domain/tokens';
import { channelTokenFacts } from '../repositories/accounts-repository';
import type { AccountsDeps } from './deps';

/**
 * The facts the REST edge decides 401 / 404 / 403 from, in the contract's order (section 5
 * point 7). One indexed query: this runs for every REST request the edge has not cached.
 * A malformed hash is simply no token (the edge answers 401 either way).
 */
export async function checkChannelToken(
  deps: AccountsDeps,
  identity: Identity,
  channelId: string,
  tokenSha256: string,
): Promise<ChannelTokenFacts> {
  authoriseTokenCheck(identity);
  return channelTokenFacts(deps.prisma, channelId, normaliseSha256(tokenSha256) ?? null);
}
