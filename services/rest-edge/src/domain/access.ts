import { budgetExceeded, failuresExhausted, type WindowCount } from './rate-window';

/**
 * The authentication rules of the Channel API (spec section 5, point 7) as one pure decision.
 *
 * The facts arrive in stages, because gathering some of them has a cost or a side effect: the
 * client address's failed-request count (read first, so a blocked address never reaches the
 * credential lookup), the accounts service's facts about the channel and token, and last the
 * token's request count (counting is the side effect, so it happens only once checks 1-6 pass).
 * `decideAccess` names the next fact it needs until it can refuse or grant; the first failing
 * check decides:
 *
 *   1. per-IP limit on failed requests            429
 *   2. the path channel exists                     401 (same body as a bad token)
 *   3. the token is valid for the channel's team   401
 *   4. the token belongs to the path channel       404 (skipped by `GET /token`)
 *   5. the path channel is active                  403 channel-inactive
 *   6. the token is not the Standard channel's     403 standard-channel
 *   7. per-token rate limit                         429
 *
 * Request validation (422) and the team's state come after, per endpoint.
 */

/** What an endpoint asks of authentication beyond the common rules. */
export interface AccessRule {
  /** `GET /token` answers for any channel of the token's team (check 4 does not apply). */
  anyChannelOfTeam: boolean;
}

export const CHANNEL_SCOPED: AccessRule = Object.freeze({ anyChannelOfTeam: false });
export const ANY_CHANNEL_OF_TEAM: AccessRule = Object.freeze({ anyChannelOfTeam: true });

/** What the request presented: no usable `Authorization: Bearer` header, or a token (by hash). */
export type Credentials = { kind: 'absent' } | { kind: 'bearer'; tokenSha256: string };

/** The accounts service's facts about a path channel and a token hash (`channelTokenCheck`). */
export interface ChannelTokenFacts {
  channelExists: boolean;
  channel: { id: string; teamCode: string; active: boolean; standard: boolean } | null;
  /** The live token with that hash within the path channel's team; null when there is none. */
  token: {
    id: string;
    channelId: string;
    teamCode: string;
    createdAt: string;
    /** The token's own channel (it may differ from the path channel on `GET /token`). */
    channelActive: boolean;
    channelStandard: boolean;
  } | null;
  teamActive: boolean;
}

export interface AccessFacts {
  pathChannelId: string;
  rule: AccessRule;
  credentials: Credentials;
  /** Failed (401) requests of the client address in the current window. */
  failedAuth?: WindowCount;
  tokenCheck?: ChannelTokenFacts;
  /** The token's requests in the current window, this one included. */
  tokenBudget?: WindowCount;
}

/** Who the request acts as once access is granted. */
export interface Principal {
  teamCode: string;
  /** The token's own channel: the identity the gateway sees (equals the path channel except on `GET /token`). */
  channelId: string;
  pathChannelId: string;
  tokenId: string;
  tokenCreatedAt: string;
  /** For endpoints that check the team's state after validation. */
  teamActive: boolean;
}

export type Refusal =
  | { reason: 'failed-auth-limit'; window: WindowCount }
  | { reason: 'unauthenticated' }
  | { reason: 'channel-not-owned' }
  | { reason: 'channel-inactive' }
  | { reason: 'standard-channel' }
  | { reason: 'token-rate-limit'; window: WindowCount };

export type AccessDecision =
  | { outcome: 'need'; fact: 'failed-auth' | 'token-check' | 'token-budget' }
  | { outcome: 'refuse'; refusal: Refusal; status: 401 | 403 | 404 | 429 }
  | { outcome: 'grant'; principal: Principal; tokenBudget: WindowCount };

const refuse = (refusal: Refusal): AccessDecision => ({ outcome: 'refuse', refusal, status: STATUS[refusal.reason] });

const STATUS: Record<Refusal['reason'], 401 | 403 | 404 | 429> = {
  'failed-auth-limit': 429,
  unauthenticated: 401,
  'channel-not-owned': 404,
  'channel-inactive': 403,
  'standard-channel': 403,
  'token-rate-limit': 429,
};

export function decideAccess(f: AccessFacts): AccessDecision {
  // 1. A blocked address learns nothing else, not even whether its token works.
  if (!f.failedAuth) return { outcome: 'need', fact: 'failed-auth' };
  if (failuresExhausted(f.failedAuth)) return refuse({ reason: 'failed-auth-limit', window: f.failedAuth });

  // A missing token is refused like an unknown channel or a bad token: nothing to look up.
  if (f.credentials.kind === 'absent') return refuse({ reason: 'unauthenticated' });
  if (!f.tokenCheck) return { outcome: 'need', fact: 'token-check' };
  const { channel, token } = f.tokenCheck;

  // 2. Unknown channel: the same answer as a bad token, so channel ids cannot be probed.
  if (!f.tokenCheck.channelExists || !channel || channel.id !== f.pathChannelId) {
    return refuse({ reason: 'unauthenticated' });
  }
  // 3. The token must be live and of the path channel's team.
  if (!token || token.teamCode !== channel.teamCode) return refuse({ reason: 'unauthenticated' });
  // 4. A sibling channel's token: the path channel is not visible to it.
  if (!f.rule.anyChannelOfTeam && token.channelId !== channel.id) return refuse({ reason: 'channel-not-owned' });
  // 5. Deactivation revokes API access: the path channel, and the token's own channel when they differ.
  if (!channel.active || !token.channelActive) return refuse({ reason: 'channel-inactive' });
  // 6. A token stored for the Standard channel before 1.2.0 is refused everywhere.
  if (token.channelStandard) return refuse({ reason: 'standard-channel' });

  // 7. Only a request that passed every check above uses the token's budget.
  if (!f.tokenBudget) return { outcome: 'need', fact: 'token-budget' };
  if (budgetExceeded(f.tokenBudget)) return refuse({ reason: 'token-rate-limit', window: f.tokenBudget });

  return {
    outcome: 'grant',
    tokenBudget: f.tokenBudget,
    principal: {
      teamCode: token.teamCode,
      channelId: token.channelId,
      pathChannelId: f.pathChannelId,
      tokenId: token.id,
      tokenCreatedAt: token.createdAt,
      teamActive: f.tokenCheck.teamActive,
    },
  };
}

/**
 * Whether a lookup result may be cached. Refusals that a new token or a new channel could turn
 * into a success (401) are never cached, so a freshly issued token works on its first request.
 */
export function isCacheableTokenCheck(facts: ChannelTokenFacts): boolean {
  return facts.channelExists && facts.channel !== null && facts.token !== null;
}
