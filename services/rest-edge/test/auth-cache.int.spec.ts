import { createHash } from 'node:crypto';
import {
  backOffice,
  closeAgents,
  CREATE_CHANNEL,
  issueToken,
  operator,
  REVOKE_TOKEN,
  seedTeam,
  startSystem,
  UPDATE_CHANNEL,
  UPDATE_TEAM,
  type IssuedToken,
  type RunningEdge,
  type System,
} from './support/system';

/**
 * The credentials cache against the real event flow: accounts' outbox -> relay -> Kafka (a real
 * broker) -> each edge's own consumer group. The cache TTL is an hour here, so only the events
 * can make a change visible.
 */
describe('credentials cache with invalidation by accounts events over Kafka', () => {
  let sys: System;
  let edges: RunningEdge[];
  let acme: Record<string, IssuedToken>;
  const HOUR = String(60 * 60 * 1000);

  /** Resolves when every edge has dropped the team's entries because of `times` events of this type. */
  function invalidation(eventType: string, teamCode = 'acme', times = 1): Promise<void> {
    return Promise.all(
      edges.map(
        (e) =>
          new Promise<void>((resolve) => {
            let seen = 0;
            const off = e.edge.authCache.onInvalidate((team, reason) => {
              if (team === teamCode && reason === eventType && ++seen === times) {
                off();
                resolve();
              }
            });
          }),
      ),
    ).then(() => undefined);
  }

  const get = (e: RunningEdge, channelId: string, token: string, path = '/') => e.call('GET', `/v1/channels/${channelId}${path}`, { token });

  beforeAll(async () => {
    sys = await startSystem();
    // Two replicas: each must drop its own cache.
    edges = [await sys.startEdge({ AUTH_CACHE_TTL_MS: HOUR }), await sys.startEdge({ AUTH_CACHE_TTL_MS: HOUR })];
    // The seeding's own events reach the edges after a while; let them pass before anything is cached.
    // (Standard + 3 channels created, 3 tokens issued; topics are consumed independently.)
    const seeded = Promise.all([invalidation('channel.created', 'acme', 4), invalidation('api-token.issued', 'acme', 3)]);
    acme = await seedTeam(sys, 'acme', ['shop', 'other', 'third']);
    await seeded;
  }, 120_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  it('serves repeated requests from the cache: a change that bypasses the events is not seen', async () => {
    for (const e of edges) expect((await get(e, 'acme-third', acme.third!.token)).status).toBe(200);
    // Not how accounts changes anything; it shows the edge did not ask accounts again.
    await sys.sql(`UPDATE accounts.channel SET active = false WHERE id = 'acme-third'`);
    try {
      for (const e of edges) expect((await get(e, 'acme-third', acme.third!.token)).status).toBe(200);
    } finally {
      await sys.sql(`UPDATE accounts.channel SET active = true WHERE id = 'acme-third'`);
    }
  });

  it('a revoked token is refused on the very next request after the event arrives', async () => {
    for (const e of edges) expect((await get(e, 'acme-shop', acme.shop!.token)).status).toBe(200);
    const dropped = invalidation('api-token.revoked');
    expect(await sys.graph(backOffice('acme'), REVOKE_TOKEN, { channelId: 'acme-shop' })).toEqual({ revokeApiToken: true });
    await dropped;
    for (const e of edges) {
      const res = await get(e, 'acme-shop', acme.shop!.token);
      sys.contract.check('GET', '/', res);
      expect(res.status).toBe(401);
    }
  }, 30_000);

  it('a deactivated channel is refused (403 channel-inactive) on the very next request, and restored when reactivated', async () => {
    for (const e of edges) expect((await get(e, 'acme-other', acme.other!.token, '/token')).status).toBe(200);
    const deactivated = invalidation('channel.updated');
    await sys.graph(backOffice('acme'), UPDATE_CHANNEL, { id: 'acme-other', input: { active: false } });
    await deactivated;
    for (const e of edges) {
      const res = await get(e, 'acme-other', acme.other!.token, '/token');
      sys.contract.check('GET', '/token', res);
      expect(res.status).toBe(403);
      expect(res.body.type).toMatch(/\/problems\/channel-inactive$/);
    }
    const reactivated = invalidation('channel.updated');
    await sys.graph(backOffice('acme'), UPDATE_CHANNEL, { id: 'acme-other', input: { active: true } });
    await reactivated;
    for (const e of edges) expect((await get(e, 'acme-other', acme.other!.token, '/token')).status).toBe(200);
  }, 30_000);

  it('a newly issued token works on its first request: refusals are never cached', async () => {
    // The channel does not exist yet: 401, which must not be remembered.
    expect((await get(edges[0]!, 'acme-fresh', acme.third!.token)).status).toBe(401);
    await sys.graph(backOffice('acme'), CREATE_CHANNEL, { input: { code: 'fresh', name: 'Fresh' } });
    const fresh = await issueToken(sys, 'acme-fresh');
    // No waiting for any event.
    expect((await get(edges[0]!, 'acme-fresh', fresh.token)).status).toBe(200);
    expect((await get(edges[1]!, 'acme-fresh', fresh.token)).status).toBe(200);
  }, 30_000);

  it('issuing a new token revokes the cached previous one on the next request after the event', async () => {
    for (const e of edges) expect((await get(e, 'acme-third', acme.third!.token)).status).toBe(200);
    const dropped = invalidation('api-token.issued');
    const replacement = await issueToken(sys, 'acme-third');
    await dropped;
    for (const e of edges) {
      expect((await get(e, 'acme-third', acme.third!.token)).status).toBe(401);
      expect((await get(e, 'acme-third', replacement.token)).status).toBe(200);
    }
  }, 30_000);

  it('a team change drops the team entries and nothing else', async () => {
    // beta's own creation events drop beta's (empty) entries; let them pass first.
    const betaSettled = Promise.all([invalidation('channel.created', 'beta', 2), invalidation('api-token.issued', 'beta')]);
    const beta = await seedTeam(sys, 'beta', ['shop']);
    await betaSettled;
    for (const e of edges) {
      expect((await get(e, 'beta-shop', beta.shop!.token)).status).toBe(200);
      expect((await get(e, 'acme-third', acme.third!.token)).status).toBe(401); // replaced above: never cached
    }
    const betaHash = createHash('sha256').update(beta.shop!.token).digest('hex');
    const acmeEntries = edges.map((e) => e.edge.authCache.size - 1);
    expect(acmeEntries.every((n) => n > 0)).toBe(true);
    const dropped = invalidation('team.updated');
    await sys.graph(operator, UPDATE_TEAM, { code: 'acme', input: { name: 'Acme renamed' } });
    await dropped;
    for (const e of edges) {
      expect(e.edge.authCache.size).toBe(1);
      expect(e.edge.authCache.get('beta-shop', betaHash)).toBeDefined();
    }
  }, 30_000);
});
