import net from 'node:net';
import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { uniqueSuffix } from '@pf/platform/testing/infra';
import { atWindowStart, closeAgents, seedTeam, startSystem, type EdgeResponse, type IssuedToken, type System } from './support/system';

/**
 * Spec section 8 limits through the real system, counters in the real Redis. Requests come from
 * distinct loopback addresses (127.0.0.x) so each test has its own client address.
 */
describe('rate limits (spec section 8)', () => {
  let sys: System;
  let acme: Record<string, IssuedToken>;
  /** Tests that count a few requests use long windows, so a window boundary cannot fall in the middle. */
  const LONG_WINDOW = { RATE_LIMIT_WINDOW_SECONDS: '3600' };

  beforeAll(async () => {
    sys = await startSystem();
    acme = await seedTeam(sys, 'acme', ['shop', 'other', 'bulk', 'spare']);
  }, 60_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  function expect429(res: EdgeResponse, limit: number) {
    sys.contract.check('GET', '/', res);
    expect(res.status).toBe(429);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}rate-limited`, title: 'Too Many Requests', status: 429, detail: expect.any(String) });
    expect(res.headers['service-api-version']).toBe('1.2.0');
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(res.headers['retry-after']);
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
    // Retry-After counts the seconds to the same instant X-RateLimit-Reset names.
    expect(Math.abs(Date.now() / 1000 + retryAfter - reset)).toBeLessThanOrEqual(2);
    return { retryAfter, reset };
  }

  describe('failed authentication per client address', () => {
    it('the 61st failed request of a window gets 429, and so does every request from that address (even with a valid token) until the window ends', async () => {
      // Long enough for 61 requests and the checks below on a loaded machine (CI saw 3 s run out).
      const windowSeconds = 8;
      const edge = await sys.startEdge({ RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds) });
      const from = '127.0.0.2';
      await atWindowStart(windowSeconds, 7_000);
      for (let i = 1; i <= 60; i++) {
        const res = await edge.call('GET', '/v1/channels/acme-shop/', { token: `pft_wrong-${i}`, from });
        expect(res.status).toBe(401);
      }
      const sixtyFirst = await edge.call('GET', '/v1/channels/acme-shop/', { token: 'pft_wrong-61', from });
      const { reset } = expect429(sixtyFirst, 60);

      // Check 1 comes before everything: a valid token, an unknown channel, an unknown path.
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, from }), 60);
      expect((await edge.call('GET', '/v1/channels/acme-nowhere/', { token: acme.shop!.token, from })).status).toBe(429);
      expect((await edge.call('POST', '/v1/channels/acme-shop/test-connection', { token: acme.shop!.token, from, body: { echo: 1 } })).status).toBe(429);
      // Every request: outside the channel API too (the contract document, a path nothing serves).
      for (const path of ['/v1/openapi.yaml', '/v1/nothing-here', '/v1/channels/']) {
        const res = await edge.call('GET', path, { from });
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
        expect(res.headers['x-ratelimit-limit']).toBe('60');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect((await edge.call('GET', '/v1/openapi.yaml', { from: '127.0.0.12' })).status).toBe(200);
      // Other addresses are not affected.
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, from: '127.0.0.12' })).status).toBe(200);

      await new Promise((r) => setTimeout(r, reset * 1000 - Date.now() + 50));
      const after = await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, from });
      sys.contract.check('GET', '/', after);
      expect(after.status).toBe(200);
      await edge.close();
    }, 45_000);

    it('requests with a working token do not use the address budget, nor do refusals other than 401', async () => {
      const edge = await sys.startEdge({ RATE_LIMIT_FAILED_AUTH_PER_IP: '3', ...LONG_WINDOW });
      const from = '127.0.0.3';
      await atWindowStart(3600, 10_000);
      for (let i = 0; i < 20; i++) expect((await edge.call('GET', '/v1/channels/acme-shop/team', { token: acme.shop!.token, from })).status).toBe(200);
      // a sibling's token (404) and a wrong body (422) are not failed authentications
      for (let i = 0; i < 5; i++) expect((await edge.call('GET', '/v1/channels/acme-other/', { token: acme.shop!.token, from })).status).toBe(404);
      expect((await edge.call('POST', '/v1/channels/acme-shop/test-connection', { token: acme.shop!.token, from, body: { echo: 5 } })).status).toBe(422);
      for (let i = 0; i < 3; i++) expect((await edge.call('GET', '/v1/channels/acme-shop/', { from })).status).toBe(401);
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { from }), 3);
      // Blocked, even a malformed request (two Authorization headers) gets 429 first (section 5.7).
      const port = Number(new URL(edge.url).port);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write('GET /v1/channels/acme-shop/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      await edge.close();
    });
  });

  describe('client address behind proxies', () => {
    const bad = { token: 'pft_wrong' };

    it('a spoofed X-Forwarded-For from an untrusted address changes nothing', async () => {
      const edge = await sys.startEdge({ RATE_LIMIT_FAILED_AUTH_PER_IP: '2', TRUSTED_PROXIES: '127.0.0.4', ...LONG_WINDOW });
      const from = '127.0.0.5';
      await atWindowStart(3600, 10_000);
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, from, headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(401);
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, from, headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(401);
      // a fresh forwarded address does not buy a fresh budget
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, from, headers: { 'x-forwarded-for': '203.0.113.3' } }), 2);
      // and naming the blocked address from elsewhere does not block anyone
      const other = await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, from: '127.0.0.6', headers: { 'x-forwarded-for': '127.0.0.5' } });
      expect(other.status).toBe(200);
      await edge.close();
    });

    it('X-Forwarded-For from a trusted proxy names the client', async () => {
      const edge = await sys.startEdge({ RATE_LIMIT_FAILED_AUTH_PER_IP: '2', TRUSTED_PROXIES: '127.0.0.4, 10.0.0.0/8', ...LONG_WINDOW });
      const proxy = '127.0.0.4';
      await atWindowStart(3600, 10_000);
      const client = (xff: string) => ({ from: proxy, headers: { 'x-forwarded-for': xff } });
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...client('198.51.100.7') })).status).toBe(401);
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...client('198.51.100.7') })).status).toBe(401);
      // the limit reached (2 failures) is not exceeded: a working token still passes; the third failure exceeds it
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, ...client('198.51.100.7') })).status).toBe(200);
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...client('198.51.100.7') }), 2);
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, ...client('198.51.100.7') }), 2);
      // the client's own address counts even when it claims another in front of it (only trusted hops are skipped)
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...client('192.0.2.1, 198.51.100.7') })).status).toBe(429);
      // ... and through a second trusted proxy
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...client('198.51.100.7, 10.1.2.3') })).status).toBe(429);
      // other clients behind the same proxy, and the proxy itself, are not blocked
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, ...client('198.51.100.8') })).status).toBe(200);
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { token: acme.shop!.token, from: proxy })).status).toBe(200);
      await edge.close();
    });

    it('a forwarded value that is no address counts as the proxy, not as a new client each time', async () => {
      const edge = await sys.startEdge({ RATE_LIMIT_FAILED_AUTH_PER_IP: '2', TRUSTED_PROXIES: '127.0.0.9', ...LONG_WINDOW });
      await atWindowStart(3600, 10_000);
      const made = (n: number) => ({ from: '127.0.0.9', headers: { 'x-forwarded-for': `not-an-ip-${n}` } });
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...made(1) })).status).toBe(401);
      expect((await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...made(2) })).status).toBe(401);
      expect429(await edge.call('GET', '/v1/channels/acme-shop/', { ...bad, ...made(3) }), 2);
      await edge.close();
    });
  });

  describe('per token', () => {
    it('the 601st request of a window on one token gets 429 with all four headers, two edge instances sharing the budget', async () => {
      // The default limit and window; two replicas share one Redis key prefix.
      const shared = { REDIS_KEY_PREFIX: `pf-edge-test:${uniqueSuffix()}:` };
      const [a, b] = [await sys.startEdge(shared), await sys.startEdge(shared)];
      await atWindowStart(60, 15_000);
      const remaining: number[] = [];
      const token = acme.bulk!.token;
      for (let batch = 0; batch < 60; batch++) {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call('GET', '/v1/channels/acme-bulk/', { token, from: '127.0.0.7' })),
        );
        for (const res of results) {
          expect(res.status).toBe(200);
          expect(res.headers['x-ratelimit-limit']).toBe('600');
          remaining.push(Number(res.headers['x-ratelimit-remaining']));
        }
      }
      // Each of the 600 requests was counted exactly once across both replicas.
      expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 600 }, (_, i) => i));

      const refused = await a.call('GET', '/v1/channels/acme-bulk/', { token, from: '127.0.0.7' });
      const { retryAfter } = expect429(refused, 600);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect429(await b.call('GET', '/v1/channels/acme-bulk/', { token, from: '127.0.0.7' }), 600);
      // Another token of the same team has its own budget; the refusals did not count as failures.
      expect((await b.call('GET', '/v1/channels/acme-spare/', { token: acme.spare!.token, from: '127.0.0.7' })).status).toBe(200);
      expect((await a.edge.rateLimiter.peekFailedAuth('127.0.0.7')).count).toBe(0);
      await a.close();
      await b.close();
    }, 60_000);
  });
});
