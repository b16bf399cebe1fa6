import { createLogger } from '@pf/platform/logging';
import { testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { InMemoryRateLimiter } from '../src/rate-limit/memory';
import type { RateLimiter, RateLimits } from '../src/rate-limit/rate-limiter';
import { RedisRateLimiter } from '../src/rate-limit/redis';

const logger = createLogger('rate-limiter-test', 'silent');
// An hour: a window boundary cannot fall inside a test (the roll-over test uses its own short window).
const limits: RateLimits = { perToken: 5, failedAuthPerIp: 3, windowMs: 3_600_000 };

/** The same behaviour is required of both implementations. */
const implementations: [string, (l: RateLimits, prefix: string) => Promise<RateLimiter>][] = [
  [
    'redis',
    async (l, prefix) => {
      const r = new RedisRateLimiter({ url: testInfra.redisUrl, keyPrefix: prefix, limits: l, logger });
      await r.connect();
      return r;
    },
  ],
  ['memory', async (l) => new InMemoryRateLimiter(l)],
];

describe.each(implementations)('%s rate limiter', (kind, create) => {
  const opened: RateLimiter[] = [];
  let prefix: string;
  const make = async (l: RateLimits = limits) => {
    const r = await create(l, prefix);
    opened.push(r);
    return r;
  };

  beforeEach(() => {
    prefix = `pf-test:${uniqueSuffix()}:`;
  });

  afterEach(async () => {
    for (const r of opened.splice(0)) {
      if (r instanceof RedisRateLimiter) await r.deleteAllKeys();
      await r.close();
    }
  });

  it('counts failures up to the one that exceeds the limit, then refuses to count more', async () => {
    const r = await make();
    expect((await r.peekFailedAuth('10.0.0.1')).count).toBe(0);
    for (let i = 1; i <= 4; i++) {
      const { recorded, failedAuth } = await r.recordFailedAuth('10.0.0.1');
      expect(recorded).toBe(true);
      expect(failedAuth.count).toBe(i);
    }
    const over = await r.recordFailedAuth('10.0.0.1');
    expect(over.recorded).toBe(false);
    expect(over.failedAuth).toMatchObject({ count: 4, limit: 3 });
    expect((await r.peekFailedAuth('10.0.0.2')).count).toBe(0);
  });

  it('admits a token while its address is not blocked, and counts nothing for a blocked address', async () => {
    const r = await make();
    const first = await r.admit('10.0.0.1', 'tok-a');
    expect(first.tokenBudget).toMatchObject({ count: 1, limit: 5 });
    expect(first.failedAuth.count).toBe(0);
    // The limit (3) reached is not yet exceeded: still admitted.
    for (let i = 0; i < 3; i++) await r.recordFailedAuth('10.0.0.9');
    expect((await r.admit('10.0.0.9', 'tok-b')).tokenBudget?.count).toBe(1);
    await r.recordFailedAuth('10.0.0.9');
    const blocked = await r.admit('10.0.0.9', 'tok-a');
    expect(blocked.tokenBudget).toBeUndefined();
    expect(blocked.failedAuth.count).toBe(4);
    // The blocked attempt did not use the token's budget.
    expect((await r.admit('10.0.0.1', 'tok-a')).tokenBudget?.count).toBe(2);
  });

  it('reports the window the counts belong to, aligned on its length', async () => {
    const r = await make();
    const { tokenBudget } = await r.admit('10.0.0.1', 'tok-w');
    expect(tokenBudget!.resetAtMs % limits.windowMs).toBe(0);
    expect(tokenBudget!.resetAtMs).toBeGreaterThan(tokenBudget!.nowMs);
    expect(tokenBudget!.resetAtMs - tokenBudget!.nowMs).toBeLessThanOrEqual(limits.windowMs);
    expect(Math.abs(tokenBudget!.nowMs - Date.now())).toBeLessThan(5_000);
  });

  it('starts afresh in the next window', async () => {
    const r = await make({ ...limits, windowMs: 1_000 });
    // Begin near the start of a window, so the three failures land in the same one.
    const start = await r.peekFailedAuth('10.0.0.1');
    if (start.resetAtMs - start.nowMs < 500) await new Promise((resolve) => setTimeout(resolve, start.resetAtMs - start.nowMs + 10));
    for (let i = 0; i < 3; i++) await r.recordFailedAuth('10.0.0.1');
    const blocked = await r.peekFailedAuth('10.0.0.1');
    expect(blocked.count).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, blocked.resetAtMs - blocked.nowMs + 20));
    expect((await r.peekFailedAuth('10.0.0.1')).count).toBe(0);
    expect((await r.recordFailedAuth('10.0.0.1')).recorded).toBe(true);
  });

  if (kind === 'redis') {
    // Counting is what Redis does; admitting a count within the limit is the pure rule (domain/access.spec.ts),
    // and the edge's 429 at the limit is checked end to end in rate-limits.int.spec.ts.
    it('counts each admission exactly once under concurrency across instances sharing Redis', async () => {
      const l = { ...limits, perToken: 200, failedAuthPerIp: 50 };
      const [a, b] = [await make(l), await make(l)];
      const admits = await Promise.all(Array.from({ length: 500 }, (_, i) => (i % 2 ? a : b).admit('10.0.0.1', 'tok-c')));
      const counts = admits.map((x) => x.tokenBudget!.count).sort((x, y) => x - y);
      expect(counts).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));

      const failures = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).recordFailedAuth('10.0.0.2')));
      expect(failures.filter((f) => f.recorded)).toHaveLength(51);
      expect((await a.peekFailedAuth('10.0.0.2')).count).toBe(51);
    });

    it('keys expire shortly after their window', async () => {
      const r = (await make({ ...limits, windowMs: 1_000 })) as RedisRateLimiter;
      await r.admit('10.0.0.1', 'tok-e');
      const { createClient } = await import('redis');
      const c = createClient({ url: testInfra.redisUrl });
      await c.connect();
      try {
        const keys = await c.keys(`${prefix}*`);
        expect(keys).toHaveLength(1);
        const ttl = await c.pTTL(keys[0]!);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(2_000);
      } finally {
        await c.close();
      }
    });
  }
});
