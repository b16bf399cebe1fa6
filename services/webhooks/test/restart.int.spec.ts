import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { OrderCreated } from '@pf/platform/events/orders';
import { createLogger } from '@pf/platform/logging';
import { outgoing } from '@pf/platform/outbox/outbox';
import { metricsRegistry } from '@pf/platform/metrics';
import { deleteTestTopics, eventually, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { claimDueDeliveries, failInterruptedLastAttempts, INTERRUPTED_ATTEMPT_ERROR, recordAttempts } from '../src/repositories/deliveries';
import { orderFacts, v4, WebhooksHarness } from './support/harness';
import { createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

const HOST = 'restart.hooks-test.dev';

/**
 * The queue is durable: a restart (or a worker that died) loses nothing and sends nothing twice.
 * The events come from the real Kafka broker: a restart in the middle of consuming them reads on
 * from the group's committed offsets, as a new process would.
 */
describe('webhook queue across restarts', () => {
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let h: WebhooksHarness;
  let bus: KafkaEventBus;
  const team = `q${uniqueSuffix()}`;
  const topicPrefix = `pf-test-webhooks-restart-${uniqueSuffix()}.`;
  const env = {
    WEBHOOK_RETRY_DELAYS_SECONDS: '0.2,0.2,0.2,0.2',
    WEBHOOK_TIMEOUT_MS: '2000',
    // Well above an attempt (2.5 s) and its recording on a loaded machine: a lease that ran out
    // under a worker still sending lets the other replica send it too (at least once, as
    // documented), which 'two workers side by side' would count as the same delivery held twice.
    // The crash test claims with its own lease of 1 s.
    WEBHOOK_LEASE_SECONDS: '10',
    // the resolver is the test's own, answering at once
    WEBHOOK_DNS_TIMEOUT_MS: '500',
    WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
    WEBHOOK_DELIVERY_CONCURRENCY: '16',
    WEBHOOK_CLAIM_BATCH: '16',
  };

  beforeAll(async () => {
    cert = createTestCertificate([HOST]);
    receiver = await new TestReceiver(cert).start();
    receiver.setDefault({ delayMs: 3, status: 200 });
    const logger = createLogger('webhooks-restart-test', process.env.TEST_LOG_LEVEL ?? 'silent');
    bus = new KafkaEventBus({ brokers: testInfra.kafkaBrokers, clientId: 'webhooks-restart-test', topicPrefix, logger, topicDefaults: { numPartitions: 1, replicationFactor: 1 } });
    // Topics exist before the consumers join, so they start at the beginning of each.
    await bus.ensureTopics(['accounts.teams', 'accounts.channels', 'orders.orders', 'stock.stock-levels']);
    h = await WebhooksHarness.start({ bus, env: { ...env, WEBHOOK_EXTRA_CA: cert.certPath } });
    h.dns.set(HOST, [v4('127.0.0.1')]);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await bus?.close();
    await deleteTestTopics(topicPrefix).catch(() => undefined);
    await receiver?.stop();
    cert?.remove();
  }, 60_000);

  const received = (code: string) => receiver.received.filter((r) => r.json.channelCode === code);

  it('restarted in the middle of 1 000 pending deliveries: every one arrives, none twice within one attempt', async () => {
    const channelId = await h.seedChannel(team, 'restart');
    receiver.trust('restart', await h.register(channelId, `https://${HOST}:${receiver.port}/restart`));
    await h.bus.publish(
      Array.from({ length: 1000 }, () => {
        const order = orderFacts(channelId);
        return outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }));
      }),
    );
    await eventually(() => (received('restart').length >= 150 ? true : undefined), 60_000, 10);
    h = await h.restart({ env: { ...env, WEBHOOK_EXTRA_CA: cert.certPath } });
    const atRestart = received('restart').length;
    expect(atRestart).toBeLessThan(1000);

    const all = await eventually(async () => {
      const { rows } = await h.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM delivery WHERE channel_id = $1 AND status = 'succeeded'", [channelId]);
      return rows[0]!.n === 1000 ? true : undefined;
    }, 120_000, 100);
    expect(all).toBe(true);
    const got = received('restart');
    const perAttempt = new Map<string, number>();
    for (const r of got) perAttempt.set(`${r.deliveryId}#${r.attempt}`, (perAttempt.get(`${r.deliveryId}#${r.attempt}`) ?? 0) + 1);
    expect([...perAttempt.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(got.map((r) => r.deliveryId)).size).toBe(1000);
    expect(got.every((r) => r.verifiedWith === 'restart')).toBe(true);
    // A graceful stop finishes and records the attempts in flight: nothing had to be sent again.
    expect(got).toHaveLength(1000);
  }, 180_000);

  it('deliveries of a worker that died mid-attempt are taken up again when their lease runs out, as the next attempt', async () => {
    const channelId = await h.seedChannel(team, 'crash');
    receiver.trust('crash', await h.register(channelId, `https://${HOST}:${receiver.port}/crash`));
    await h.instance.worker.stop();
    await h.bus.publish(
      Array.from({ length: 20 }, () => {
        const order = orderFacts(channelId);
        return outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }));
      }),
    );
    await eventually(async () => ((await h.sql.query('SELECT count(*)::int AS n FROM delivery WHERE channel_id = $1', [channelId])).rows[0].n === 20 ? true : undefined));
    // A worker claims them (leased for 1 s) and dies before sending or recording anything.
    const claimed = await claimDueDeliveries(h.sql, { limit: 20, leaseSeconds: 1, maxAttempts: 5 });
    expect(claimed.filter((d) => d.channelId === channelId)).toHaveLength(20);
    await h.instance.worker.start();
    await new Promise((r) => setTimeout(r, 500));
    expect(received('crash')).toHaveLength(0); // still leased: nobody else may touch them
    const got = await eventually(() => (received('crash').length === 20 ? received('crash') : undefined), 30_000);
    expect(got.every((r) => r.attempt === 2)).toBe(true);
    expect(new Set(got.map((r) => r.deliveryId)).size).toBe(20);
    // The log tells of the interrupted first attempt, then the second that went through.
    const log = await eventually(async () => {
      const { rows } = await h.sql.query<{ attempt_number: number; outcome: string; status_code: number | null; url: string | null; error: string | null; duration_ms: number }>(
        `SELECT a.attempt_number, a.outcome, a.status_code, a.url, a.error, a.duration_ms
           FROM delivery_attempt a JOIN delivery d ON d.id = a.delivery_id WHERE d.channel_id = $1 ORDER BY a.delivery_id, a.attempt_number`,
        [channelId],
      );
      return rows.length === 40 ? rows : undefined;
    });
    expect(log.filter((a) => a.attempt_number === 1)).toEqual(
      Array.from({ length: 20 }, () => ({ attempt_number: 1, outcome: 'failed', status_code: null, url: null, error: INTERRUPTED_ATTEMPT_ERROR, duration_ms: expect.any(Number) })),
    );
    // Claim to lease end: the 1 s lease the dead worker took.
    expect(log.filter((a) => a.attempt_number === 1).every((a) => a.duration_ms >= 900 && a.duration_ms <= 1100)).toBe(true);
    expect(log.filter((a) => a.attempt_number === 2).every((a) => a.outcome === 'succeeded' && a.status_code === 200)).toBe(true);
  }, 60_000);

  it('a delivery whose last attempt was interrupted fails, its log telling that attempt\'s outcome (none), not the one before', async () => {
    const channelId = await h.seedChannel(team, 'interrupted');
    await h.register(channelId, `https://${HOST}:${receiver.port}/interrupted`);
    await h.instance.worker.stop();
    try {
      const order = orderFacts(channelId);
      await h.bus.publish([outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }))]);
      const id = await eventually(async () => (await h.sql.query('SELECT id FROM delivery WHERE channel_id = $1', [channelId])).rows[0]?.id as string | undefined);
      // Its fifth and last attempt under way, the fourth answered 500, and the worker gone (the lease ran out).
      await h.sql.query(
        `UPDATE delivery SET status = 'sending', attempt_count = 5, last_status_code = 500, last_error = 'HTTP 500', lease_token = gen_random_uuid(), next_attempt_at = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
      expect(await failInterruptedLastAttempts(h.sql, 5)).toBe(1);
      const { rows } = await h.sql.query('SELECT status, last_status_code, last_error FROM delivery WHERE id = $1', [id]);
      expect(rows).toEqual([{ status: 'failed', last_status_code: null, last_error: INTERRUPTED_ATTEMPT_ERROR }]);
      const attempts = await h.sql.query('SELECT attempt_number, outcome, status_code, error, next_attempt_at FROM delivery_attempt WHERE delivery_id = $1', [id]);
      expect(attempts.rows).toEqual([{ attempt_number: 5, outcome: 'failed', status_code: null, error: INTERRUPTED_ATTEMPT_ERROR, next_attempt_at: null }]);
      // Failed once: a second pass finds nothing to fail, and logs nothing twice.
      expect(await failInterruptedLastAttempts(h.sql, 5)).toBe(0);
    } finally {
      await h.instance.worker.start();
    }
  }, 60_000);

  it('a worker that overran its lease records its attempt in the place of the interrupted one logged meanwhile', async () => {
    const channelId = await h.seedChannel(team, 'overrun');
    await h.register(channelId, `https://${HOST}:${receiver.port}/overrun`);
    await h.instance.worker.stop();
    try {
      const order = orderFacts(channelId);
      await h.bus.publish([outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }))]);
      const id = await eventually(async () => (await h.sql.query('SELECT id FROM delivery WHERE channel_id = $1', [channelId])).rows[0]?.id as string | undefined);
      const mine = (claimed: Awaited<ReturnType<typeof claimDueDeliveries>>) => claimed.find((d) => d.id === id);
      const slow = mine(await claimDueDeliveries(h.sql, { limit: 50, leaseSeconds: 1, maxAttempts: 5 }))!;
      const startedAt = new Date();
      // Its lease runs out while it is still sending; another worker takes the row up.
      const next = await eventually(async () => mine(await claimDueDeliveries(h.sql, { limit: 50, leaseSeconds: 60, maxAttempts: 5 })), 10_000, 100);
      expect(next.attempt).toBe(2);
      // The slow worker's answer arrives after all: its lease is gone, its attempt is still logged.
      await recordAttempts(h.sql, [
        { deliveryId: id, leaseToken: slow.leaseToken, attempt: 1, startedAt, durationMs: 1500, url: 'https://x.example/overrun', outcome: 'succeeded', statusCode: 200, error: null, status: 'succeeded', nextAttemptAt: null },
      ]);
      const { rows } = await h.sql.query('SELECT attempt_number, outcome, status_code FROM delivery_attempt WHERE delivery_id = $1 ORDER BY attempt_number', [id]);
      expect(rows).toEqual([{ attempt_number: 1, outcome: 'succeeded', status_code: 200 }]);
      // The next worker's claim stands.
      const state = await h.sql.query('SELECT status, attempt_count FROM delivery WHERE id = $1', [id]);
      expect(state.rows).toEqual([{ status: 'sending', attempt_count: 2 }]);
      await h.sql.query("UPDATE delivery SET status = 'failed', next_attempt_at = NULL, lease_token = NULL WHERE id = $1", [id]);
    } finally {
      await h.instance.worker.start();
    }
  }, 60_000);

  it('a running worker has the queue read at each scrape: open deliveries by state, and the overdue ones', async () => {
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/^pf_webhook_deliveries_open\{state="pending"\} \d+$/m);
    expect(text).toMatch(/^pf_webhook_deliveries_open\{state="sending"\} \d+$/m);
    expect(text).toMatch(/^pf_webhook_deliveries_overdue\{schema="webhooks"\} \d+$/m);
    await h.instance.worker.stop();
    try {
      // A stopped worker's source is gone: nothing is read for it.
      const stopped = await metricsRegistry.metrics();
      expect(stopped).not.toMatch(/^pf_webhook_deliveries_open\{/m);
      expect(stopped).not.toMatch(/^pf_webhook_deliveries_overdue\{/m);
    } finally {
      await h.instance.worker.start();
    }
  });

  it('two workers side by side never hold the same delivery', async () => {
    const channelId = await h.seedChannel(team, 'pair');
    receiver.trust('pair', await h.register(channelId, `https://${HOST}:${receiver.port}/pair`));
    // A second replica on the same database (its own bus: the events reach the first one).
    const second = await WebhooksHarness.start({ db: h.db, resolver: h.dns, env: { ...env, WEBHOOK_EXTRA_CA: cert.certPath } });
    try {
      await h.bus.publish(
        Array.from({ length: 300 }, () => {
          const order = orderFacts(channelId);
          return outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }));
        }),
      );
      const got = await eventually(() => (received('pair').length >= 300 ? received('pair') : undefined), 60_000, 20);
      await new Promise((r) => setTimeout(r, 300));
      expect(received('pair')).toHaveLength(300);
      expect(new Set(got.map((r) => r.deliveryId)).size).toBe(300);
      expect(await second.instance.deps.pool.query("SELECT count(*)::int AS n FROM delivery_attempt a JOIN delivery d ON d.id = a.delivery_id WHERE d.channel_id = $1", [channelId])).toMatchObject({ rows: [{ n: 300 }] });
    } finally {
      await second.stopReplica();
    }
  }, 90_000);
});
