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

/** Longer than any channel id accounts issues (two codes of at most 32 and a hyphen). */
const MAX_CHANNEL_ID_LENGTH = 100;

const UNKNOWN_CHANNEL: ChannelTokenFacts = { channelExists: false, channel: null, token: null, teamActive: false };

/** Whether a path's channel id could name a channel at all (a cheap guard, not the codes' grammar). */
export function mayBeChannelId(id: string): boolean {
  // `%` too: left by a path segment that did not decode, and in no code.
  // eslint-disable-next-line no-control-regex
  return id.length > 0 && id.length <= MAX_CHANNEL_ID_LENGTH && !/[\u0000-\u001f\u007f%]/.test(id);
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
    // No channel has such an id (control characters, such as a NUL Postgres refuses in text, or
    // longer than any): an unknown channel, answered 401 like any other, without asking accounts.
    if (!mayBeChannelId(pathChannelId)) return UNKNOWN_CHANNEL;
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
