import { createHash } from 'node:crypto';
import { isCacheableTokenCheck, type ChannelTokenFacts } from '../domain/access';
import { defineOperation, type GraphqlUpstream } from '../upstream/graphql';
import type { IdentityMinter } from '../upstream/identity';
import type { AuthCache } from './auth-cache';

/**
 * Sent straight to the accounts subgraph with the edge's service identity: the field is
 * `@inaccessible` in the supergraph, so the gateway does not expose it.
 */
export const CHANNEL_TOKEN_CHECK = defineOperation<{ channelId: string; tokenSha256: string }, { channelTokenCheck: ChannelTokenFacts }>(`
  query EdgeChannelTokenCheck($channelId: ID!, $tokenSha256: String!) {
    channelTokenCheck(channelId: $channelId, tokenSha256: $tokenSha256) {
      channelExists
      teamActive
      channel { id teamCode active standard }
      token { id channelId teamCode createdAt channelActive channelStandard }
    }
  }
`);

/** The stored form of an API token (accounts keeps only this): lowercase SHA-256 hex. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The facts authentication needs about (path channel, token), from the cache or from accounts. */
export class ChannelTokenChecks {
  constructor(
    private readonly accounts: GraphqlUpstream,
    private readonly identities: IdentityMinter,
    readonly cache: AuthCache,
  ) {}

  cached(pathChannelId: string, sha256: string): ChannelTokenFacts | undefined {
    return this.cache.get(pathChannelId, sha256);
  }

  async lookup(pathChannelId: string, sha256: string, requestId: string): Promise<ChannelTokenFacts> {
    const generation = this.cache.generation;
    const { channelTokenCheck } = await this.accounts.execute(
      CHANNEL_TOKEN_CHECK,
      { channelId: pathChannelId, tokenSha256: sha256 },
      { bearer: this.identities.serviceJwt(), requestId },
    );
    if (isCacheableTokenCheck(channelTokenCheck)) this.cache.set(pathChannelId, sha256, channelTokenCheck, generation);
    return channelTokenCheck;
  }
}
