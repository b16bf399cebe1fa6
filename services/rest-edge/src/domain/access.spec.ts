import {
  ANY_CHANNEL_OF_TEAM,
  CHANNEL_SCOPED,
  decideAccess,
  isCacheableTokenCheck,
  type AccessFacts,
  type ChannelTokenFacts,
} from './access';
import type { WindowCount } from './rate-window';

const window = (count: number, limit: number): WindowCount => ({ count, limit, nowMs: 1_000, resetAtMs: 60_000 });
const IP_OK = window(0, 60);
const IP_BLOCKED = window(61, 60);
const BUDGET_OK = window(1, 600);
const BUDGET_OVER = window(601, 600);

/** acme-shop's own token, everything in order. */
function facts(overrides: Partial<ChannelTokenFacts> = {}, token: Partial<NonNullable<ChannelTokenFacts['token']>> = {}): ChannelTokenFacts {
  return {
    channelExists: true,
    channel: { id: 'acme-shop', teamCode: 'acme', active: true, standard: false },
    token: {
      id: 'tok-1',
      channelId: 'acme-shop',
      teamCode: 'acme',
      createdAt: '2026-10-20T10:00:00.000Z',
      channelActive: true,
      channelStandard: false,
      ...token,
    },
    teamActive: true,
    ...overrides,
  };
}

function request(overrides: Partial<AccessFacts> = {}): AccessFacts {
  return {
    pathChannelId: 'acme-shop',
    rule: CHANNEL_SCOPED,
    credentials: { kind: 'bearer', tokenSha256: 'a'.repeat(64) },
    failedAuth: IP_OK,
    tokenCheck: facts(),
    tokenBudget: BUDGET_OK,
    ...overrides,
  };
}

const refusal = (f: AccessFacts) => {
  const d = decideAccess(f);
  if (d.outcome !== 'refuse') throw new Error(`expected a refusal, got ${JSON.stringify(d)}`);
  return { reason: d.refusal.reason, status: d.status };
};

const SIBLING_TOKEN = { id: 'tok-2', channelId: 'acme-other' } as const;
const INACTIVE_CHANNEL = { channel: { id: 'acme-shop', teamCode: 'acme', active: false, standard: false } };

describe('decideAccess: the facts it asks for, in order', () => {
  it('asks for the address failed-request count before anything else', () => {
    expect(decideAccess({ pathChannelId: 'acme-shop', rule: CHANNEL_SCOPED, credentials: { kind: 'bearer', tokenSha256: 'x' } })).toEqual({
      outcome: 'need',
      fact: 'failed-auth',
    });
  });

  it('asks for the token check next, and for the token budget only once checks 1-6 pass', () => {
    expect(decideAccess(request({ tokenCheck: undefined, tokenBudget: undefined }))).toEqual({ outcome: 'need', fact: 'token-check' });
    expect(decideAccess(request({ tokenBudget: undefined }))).toEqual({ outcome: 'need', fact: 'token-budget' });
    // A refused request never asks to count against the token's budget.
    expect(decideAccess(request({ tokenCheck: facts({}, SIBLING_TOKEN), tokenBudget: undefined })).outcome).toBe('refuse');
  });

  it('does not look anything up for a missing token', () => {
    expect(refusal(request({ credentials: { kind: 'absent' }, tokenCheck: undefined, tokenBudget: undefined }))).toEqual({
      reason: 'unauthenticated',
      status: 401,
    });
  });
});

describe('decideAccess: each check, and that the first failing one decides', () => {
  it('1. an address over its failed-request limit gets 429 even with a valid token', () => {
    expect(refusal(request({ failedAuth: IP_BLOCKED }))).toEqual({ reason: 'failed-auth-limit', status: 429 });
    // ...and before its (missing) credentials are looked at
    expect(refusal(request({ failedAuth: IP_BLOCKED, credentials: { kind: 'absent' } })).status).toBe(429);
  });

  it('1. 60 failures are allowed; once a 61st exceeded the limit every request is refused', () => {
    expect(decideAccess(request({ failedAuth: window(60, 60) })).outcome).toBe('grant');
    expect(refusal(request({ failedAuth: window(61, 60) })).status).toBe(429);
  });

  it('2. an unknown channel is 401, before the token, activity or Standard flag are looked at', () => {
    const unknown: ChannelTokenFacts = { channelExists: false, channel: null, token: null, teamActive: false };
    expect(refusal(request({ tokenCheck: unknown }))).toEqual({ reason: 'unauthenticated', status: 401 });
  });

  it('2. facts about another channel than the path one never authenticate', () => {
    expect(refusal(request({ pathChannelId: 'acme-elsewhere' }))).toEqual({ reason: 'unauthenticated', status: 401 });
  });

  it('3. no live token with that hash in the channel team is 401', () => {
    expect(refusal(request({ tokenCheck: facts({ token: null }) }))).toEqual({ reason: 'unauthenticated', status: 401 });
    expect(refusal(request({ tokenCheck: facts({}, { teamCode: 'other' }) })).status).toBe(401);
  });

  it('3. decides before 4-6: a bad token on an inactive channel is 401', () => {
    expect(refusal(request({ tokenCheck: facts({ ...INACTIVE_CHANNEL, token: null }) })).status).toBe(401);
  });

  it('4. a sibling channel token is 404', () => {
    expect(refusal(request({ tokenCheck: facts({}, SIBLING_TOKEN) }))).toEqual({ reason: 'channel-not-owned', status: 404 });
  });

  it('4. a sibling channel token on an inactive channel is 404, not 403', () => {
    expect(refusal(request({ tokenCheck: facts(INACTIVE_CHANNEL, SIBLING_TOKEN) })).status).toBe(404);
  });

  it('4. GET /token answers for any channel of the token team', () => {
    const d = decideAccess(request({ rule: ANY_CHANNEL_OF_TEAM, tokenCheck: facts({}, SIBLING_TOKEN) }));
    expect(d).toMatchObject({ outcome: 'grant', principal: { channelId: 'acme-other', pathChannelId: 'acme-shop', teamCode: 'acme', tokenId: 'tok-2' } });
  });

  it('5. an inactive channel with its own token is 403 channel-inactive, on GET /token too', () => {
    expect(refusal(request({ tokenCheck: facts(INACTIVE_CHANNEL, { channelActive: false }) }))).toEqual({ reason: 'channel-inactive', status: 403 });
    expect(refusal(request({ rule: ANY_CHANNEL_OF_TEAM, tokenCheck: facts(INACTIVE_CHANNEL, { channelActive: false }) })).status).toBe(403);
  });

  it('5. GET /token on an inactive sibling channel is 403, and so is a token whose own channel is inactive', () => {
    expect(refusal(request({ rule: ANY_CHANNEL_OF_TEAM, tokenCheck: facts(INACTIVE_CHANNEL, SIBLING_TOKEN) })).reason).toBe('channel-inactive');
    expect(refusal(request({ rule: ANY_CHANNEL_OF_TEAM, tokenCheck: facts({}, { ...SIBLING_TOKEN, channelActive: false }) })).reason).toBe(
      'channel-inactive',
    );
  });

  it('6. a Standard channel token is 403 standard-channel', () => {
    const standard = facts({ channel: { id: 'acme-shop', teamCode: 'acme', active: true, standard: true } }, { channelStandard: true });
    expect(refusal(request({ tokenCheck: standard }))).toEqual({ reason: 'standard-channel', status: 403 });
    expect(refusal(request({ rule: ANY_CHANNEL_OF_TEAM, tokenCheck: facts({}, { ...SIBLING_TOKEN, channelStandard: true }) })).reason).toBe(
      'standard-channel',
    );
  });

  it('6. comes after 5: an inactive Standard channel is channel-inactive', () => {
    const standard = facts({ channel: { id: 'acme-shop', teamCode: 'acme', active: false, standard: true } }, { channelStandard: true, channelActive: false });
    expect(refusal(request({ tokenCheck: standard })).reason).toBe('channel-inactive');
  });

  it('7. the request over the token budget is 429 (the 601st of a window)', () => {
    expect(decideAccess(request({ tokenBudget: window(600, 600) })).outcome).toBe('grant');
    expect(refusal(request({ tokenBudget: BUDGET_OVER }))).toEqual({ reason: 'token-rate-limit', status: 429 });
  });

  it('grants with the principal and the counted budget; the team state travels on for later checks', () => {
    const d = decideAccess(request({ tokenCheck: facts({ teamActive: false }) }));
    expect(d).toEqual({
      outcome: 'grant',
      tokenBudget: BUDGET_OK,
      principal: {
        teamCode: 'acme',
        channelId: 'acme-shop',
        pathChannelId: 'acme-shop',
        tokenId: 'tok-1',
        tokenCreatedAt: '2026-10-20T10:00:00.000Z',
        teamActive: false,
      },
    });
  });
});

describe('isCacheableTokenCheck', () => {
  it('caches only answers that name a live token, never a 401 a new token could turn around', () => {
    expect(isCacheableTokenCheck(facts())).toBe(true);
    expect(isCacheableTokenCheck(facts({}, SIBLING_TOKEN))).toBe(true);
    expect(isCacheableTokenCheck(facts({ token: null }))).toBe(false);
    expect(isCacheableTokenCheck({ channelExists: false, channel: null, token: null, teamActive: false })).toBe(false);
  });
});
