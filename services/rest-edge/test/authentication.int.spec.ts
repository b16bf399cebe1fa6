import { createHash, randomBytes } from 'node:crypto';
import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import {
  backOffice,
  closeAgents,
  issueToken,
  operator,
  seedTeam,
  startSystem,
  UPDATE_CHANNEL,
  UPDATE_TEAM,
  type EdgeResponse,
  type IssuedToken,
  type RunningEdge,
  type System,
} from './support/system';

/**
 * Every outcome of spec section 5 through the real system (edge -> gateway -> accounts on
 * Postgres; rate limits in Redis), each response checked against the OpenAPI document.
 */
describe('authentication (spec section 5) on every endpoint', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let beta: Record<string, IssuedToken>;
  /** A token stored for acme's Standard channel, as a migration of pre-1.2.0 data would have left it. */
  let standardToken: string;

  const ENDPOINTS: [method: string, path: string][] = [
    ['GET', '/'],
    ['GET', '/token'],
    ['GET', '/team'],
    ['POST', '/test-connection'],
  ];
  const url = (channelId: string, path: string) => `/v1/channels/${channelId}${path === '/' ? '/' : path}`;

  async function call(method: string, channelId: string, path: string, token?: string, body?: unknown): Promise<EdgeResponse> {
    const res = await edge.call(method, url(channelId, path), { ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });
    sys.contract.check(method, path, res);
    expect(res.headers['service-api-version']).toBe('1.2.0');
    return res;
  }

  function expectProblem(res: EdgeResponse, status: number, title: string, type?: string) {
    expect(res.status).toBe(status);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, title, detail: expect.any(String) });
    if (type) expect(res.body.type).toBe(PROBLEM_TYPE_BASE + type);
  }

  beforeAll(async () => {
    sys = await startSystem();
    // This suite produces many 401s from one address; the address limit has its own suite.
    // The credentials cache and its invalidation have their own suite: here every request asks accounts.
    edge = await sys.startEdge({ RATE_LIMIT_FAILED_AUTH_PER_IP: '100000', AUTH_CACHE_TTL_MS: '0' });
    acme = await seedTeam(sys, 'acme', ['shop', 'other', 'closed']);
    beta = await seedTeam(sys, 'beta', ['shop']);
    await sys.graph(backOffice('acme'), UPDATE_CHANNEL, { id: 'acme-closed', input: { active: false } });
    standardToken = `pft_${randomBytes(32).toString('base64url')}`;
    await sys.sql(
      `INSERT INTO accounts.api_token (id, channel_id, token_sha256, prefix, created_at)
       VALUES (gen_random_uuid(), 'acme-standard', $1, $2, now())`,
      [createHash('sha256').update(standardToken).digest('hex'), standardToken.slice(0, 8)],
    );
  }, 60_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  describe('a working token on its own active channel', () => {
    it('GET / answers the channel resource, with the token rate-limit headers', async () => {
      const res = await call('GET', 'acme-shop', '/', acme.shop!.token);
      expect(res.status).toBe(200);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(res.body).toEqual({ data: { id: 'acme-shop', code: 'shop', teamCode: 'acme', name: 'Channel shop', active: true } });
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(600);
      expect(res.headers['retry-after']).toBeUndefined();
    });

    it('GET / also answers without the trailing slash', async () => {
      const res = await edge.call('GET', '/v1/channels/acme-shop', { token: acme.shop!.token });
      sys.contract.check('GET', '/', res);
      expect(res.body.data.id).toBe('acme-shop');
    });

    it('GET /token describes the token: its channel, team, prefix and issue time (never the token)', async () => {
      const res = await call('GET', 'acme-shop', '/token', acme.shop!.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { channelId: 'acme-shop', teamCode: 'acme', tokenPrefix: acme.shop!.prefix, createdAt: acme.shop!.createdAt },
      });
      expect(acme.shop!.token.startsWith(res.body.data.tokenPrefix)).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain(acme.shop!.token);
    });

    it('GET /team answers the team resource', async () => {
      const res = await call('GET', 'acme-shop', '/team', acme.shop!.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { code: 'acme', name: 'Team acme', active: true } });
    });

    it('POST /test-connection confirms the credentials, with or without a body', async () => {
      const bare = await call('POST', 'acme-shop', '/test-connection', acme.shop!.token);
      expect(bare.status).toBe(200);
      expect(bare.body).toEqual({ data: { ok: true, channelId: 'acme-shop', teamCode: 'acme', apiVersion: '1.2.0' } });
      const echoed = await call('POST', 'acme-shop', '/test-connection', acme.shop!.token, { echo: 'ping-42' });
      expect(echoed.body.data).toEqual({ ok: true, channelId: 'acme-shop', teamCode: 'acme', apiVersion: '1.2.0', echo: 'ping-42' });
    });

    it('counts each request against the token: Remaining goes down by one', async () => {
      const first = await call('GET', 'beta-shop', '/', beta.shop!.token);
      const second = await call('GET', 'beta-shop', '/', beta.shop!.token);
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    });
  });

  describe('401: missing or invalid token, unknown channel — one identical body', () => {
    let reference: EdgeResponse;
    beforeAll(async () => {
      reference = await call('GET', 'acme-shop', '/');
    });

    it('a missing Authorization header is 401 with WWW-Authenticate', () => {
      expectProblem(reference, 401, 'Unauthorized', 'unauthenticated');
      expect(reference.headers['www-authenticate']).toBe('Bearer realm="channel-api"');
      expect(reference.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it.each(ENDPOINTS)('%s %s: every kind of failure answers the very same 401', async (method, path) => {
      const outcomes: EdgeResponse[] = [
        await call(method, 'acme-shop', path),
        await call(method, 'acme-shop', path, 'pft_not-a-real-token'),
        // the token of another team
        await call(method, 'acme-shop', path, beta.shop!.token),
        // unknown channel, with a token that works elsewhere: checked before the token is looked at
        await call(method, 'acme-nowhere', path, acme.shop!.token),
        await call(method, 'nobody-shop', path, acme.shop!.token),
        // ids no channel can have: a NUL (Postgres refuses it in text), one far too long
        await call(method, 'acme%00shop', path, acme.shop!.token),
        await call(method, `acme-${'x'.repeat(300)}`, path, acme.shop!.token),
        // one that does not even decode (a bad percent-escape)
        await call(method, 'acme%E0%A4%A', path, acme.shop!.token),
        // unknown channel with no token / the Standard token
        await call(method, 'acme-nowhere', path),
        await call(method, 'acme-nowhere', path, standardToken),
      ];
      for (const res of outcomes) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual(reference.body);
        expect(res.headers['www-authenticate']).toBe(reference.headers['www-authenticate']);
      }
    });

    it.each([
      ['Basic scheme', `Basic ${Buffer.from('acme-shop:x').toString('base64')}`],
      ['Bearer without a token', 'Bearer'],
      ['Bearer with two values', 'Bearer a b'],
      ['empty', ''],
    ])('a malformed Authorization header (%s) is the same 401', async (_name, header) => {
      const res = await edge.call('GET', url('acme-shop', '/'), { authorization: header });
      sys.contract.check('GET', '/', res);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(reference.body);
    });

    it('a revoked token is 401', async () => {
      const { token } = await issueToken(sys, 'beta-shop'); // revokes beta.shop
      try {
        const res = await call('GET', 'beta-shop', '/', beta.shop!.token);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(reference.body);
        expect((await call('GET', 'beta-shop', '/', token)).status).toBe(200);
      } finally {
        beta.shop = { ...beta.shop!, token };
      }
    });
  });

  describe('404: a valid token of a sibling channel', () => {
    it.each(ENDPOINTS.filter(([, p]) => p !== '/token'))('%s %s on a sibling channel is 404', async (method, path) => {
      const res = await call(method, 'acme-other', path, acme.shop!.token);
      expectProblem(res, 404, 'Not Found', 'not-found');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('a sibling token on an inactive channel is 404, not 403 (ownership is checked first)', async () => {
      const res = await call('GET', 'acme-closed', '/', acme.shop!.token);
      expectProblem(res, 404, 'Not Found', 'not-found');
    });

    it('GET /token answers for any channel of the token team, describing the token own channel', async () => {
      const res = await call('GET', 'acme-other', '/token', acme.shop!.token);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ channelId: 'acme-shop', teamCode: 'acme', tokenPrefix: acme.shop!.prefix, createdAt: acme.shop!.createdAt });
      // ... including the Standard channel's path
      expect((await call('GET', 'acme-standard', '/token', acme.shop!.token)).status).toBe(200);
    });
  });

  describe('403: inactive channel, Standard channel', () => {
    it.each(ENDPOINTS)('%s %s with the inactive channel own token is 403 channel-inactive', async (method, path) => {
      const res = await call(method, 'acme-closed', path, acme.closed!.token);
      expectProblem(res, 403, 'Forbidden', 'channel-inactive');
      expect(res.body.type.endsWith('/problems/channel-inactive')).toBe(true);
    });

    it('GET /token on an inactive sibling channel is 403 channel-inactive', async () => {
      const res = await call('GET', 'acme-closed', '/token', acme.shop!.token);
      expectProblem(res, 403, 'Forbidden', 'channel-inactive');
    });

    it('GET /token with an inactive channel token on an active sibling is 403 channel-inactive', async () => {
      const res = await call('GET', 'acme-shop', '/token', acme.closed!.token);
      expectProblem(res, 403, 'Forbidden', 'channel-inactive');
    });

    it.each(ENDPOINTS)('%s %s with a Standard channel token is 403 standard-channel', async (method, path) => {
      const res = await call(method, 'acme-standard', path, standardToken);
      expectProblem(res, 403, 'Forbidden', 'standard-channel');
    });

    it('GET /token with a Standard channel token on a sibling is 403 standard-channel', async () => {
      const res = await call('GET', 'acme-shop', '/token', standardToken);
      expectProblem(res, 403, 'Forbidden', 'standard-channel');
    });

    it('a Standard token on another channel of its team is 404 (ownership before the Standard check)', async () => {
      const res = await call('GET', 'acme-shop', '/', standardToken);
      expectProblem(res, 404, 'Not Found', 'not-found');
    });

    it('reactivating the channel restores access', async () => {
      await sys.graph(backOffice('acme'), UPDATE_CHANNEL, { id: 'acme-closed', input: { active: true } });
      try {
        expect((await call('GET', 'acme-closed', '/', acme.closed!.token)).status).toBe(200);
      } finally {
        await sys.graph(backOffice('acme'), UPDATE_CHANNEL, { id: 'acme-closed', input: { active: false } });
      }
      expect((await call('GET', 'acme-closed', '/', acme.closed!.token)).status).toBe(403);
    });
  });

  describe('team state', () => {
    it('is not checked by these endpoints: an inactive team still reads its channel, team and token', async () => {
      await sys.graph(operator, UPDATE_TEAM, { code: 'beta', input: { active: false } });
      try {
        expect((await call('GET', 'beta-shop', '/', beta.shop!.token)).status).toBe(200);
        expect((await call('GET', 'beta-shop', '/token', beta.shop!.token)).status).toBe(200);
        expect((await call('POST', 'beta-shop', '/test-connection', beta.shop!.token)).status).toBe(200);
        const team = await call('GET', 'beta-shop', '/team', beta.shop!.token);
        expect(team.body.data).toEqual({ code: 'beta', name: 'Team beta', active: false });
      } finally {
        await sys.graph(operator, UPDATE_TEAM, { code: 'beta', input: { active: true } });
      }
    });
  });
});
