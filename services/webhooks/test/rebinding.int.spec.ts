import { randomUUID } from 'node:crypto';
import { OrderCreated } from '@pf/platform/events/orders';
import { outgoing } from '@pf/platform/outbox/outbox';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { orderFacts, v4, WebhooksHarness } from './support/harness';
import { ConnectionTrap, createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

const ONCE_PUBLIC = 'rebind-once.hooks-test.dev';
const ALTERNATING = 'rebind-alternating.hooks-test.dev';
const BOTH = 'rebind-both.hooks-test.dev';
/** The loopback address an attacker points the name at; nothing there may ever be reached. */
const LOOPBACK = '127.0.0.3';

/**
 * DNS rebinding. The "public" receiver is 127.0.0.1, which this test alone allows
 * (WEBHOOK_ALLOW_PRIVATE_RANGES=127.0.0.1/32); 127.0.0.3 stays loopback, as any private address
 * does, and a listener there on the receiver's port counts every connection that reaches it.
 */
describe('DNS rebinding: 1 000 deliveries each', () => {
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let trap: ConnectionTrap;
  let h: WebhooksHarness;
  const team = `b${uniqueSuffix()}`;

  beforeAll(async () => {
    cert = createTestCertificate([ONCE_PUBLIC, ALTERNATING, BOTH]);
    receiver = await new TestReceiver(cert).start('127.0.0.1');
    trap = await new ConnectionTrap().start(LOOPBACK, receiver.port);
    h = await WebhooksHarness.start({
      env: {
        WEBHOOK_RETRY_DELAYS_SECONDS: '0.05,0.05,0.05,0.05',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
        WEBHOOK_EXTRA_CA: cert.certPath,
        WEBHOOK_DELIVERY_CONCURRENCY: '32',
      },
    });
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
    await trap?.stop();
    await receiver?.stop();
    cert?.remove();
  }, 30_000);

  async function thousandDeliveries(host: string, code: string): Promise<string> {
    const channelId = await h.seedChannel(team, code);
    const secret = await h.register(channelId, `https://${host}:${receiver.port}/${code}`);
    receiver.trust(code, secret);
    const events = Array.from({ length: 1000 }, () => {
      const order = orderFacts(channelId);
      return outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }));
    });
    await h.bus.publish(events);
    return channelId;
  }

  async function settled(channelId: string): Promise<Record<string, number>> {
    return eventually(
      async () => {
        const { rows } = await h.sql.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM delivery WHERE channel_id = $1 GROUP BY status', [channelId]);
        const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
        const done = (counts.succeeded ?? 0) + (counts.failed ?? 0);
        return done === 1000 ? counts : undefined;
      },
      60_000,
      100,
    );
  }

  it('a name that answered public at registration and loopback at delivery: every delivery refused, no connection', async () => {
    h.dns.set(ONCE_PUBLIC, (n) => (n === 1 ? [v4('127.0.0.1')] : [v4(LOOPBACK)]));
    const lookupsBefore = h.dns.lookups;
    const channelId = await thousandDeliveries(ONCE_PUBLIC, 'once');
    expect(await settled(channelId)).toEqual({ failed: 1000 });
    expect(trap.connections).toBe(0);
    expect(receiver.received.filter((r) => r.json.channelCode === 'once')).toHaveLength(0);
    // W1 ran again, with fresh DNS, before every one of them.
    expect(h.dns.lookups - lookupsBefore).toBeGreaterThanOrEqual(1001);
    const reasons = await h.sql.query<{ last_error: string }>('SELECT DISTINCT last_error FROM delivery WHERE channel_id = $1', [channelId]);
    expect(reasons.rows).toHaveLength(1);
    expect(reasons.rows[0]!.last_error).toContain('resolves to a loopback address');
    expect(reasons.rows[0]!.last_error).not.toContain(LOOPBACK);
  }, 90_000);

  it('a name that alternates on every lookup: only checked addresses are connected to, never loopback', async () => {
    h.dns.set(ALTERNATING, (n) => (n % 2 === 1 ? [v4('127.0.0.1')] : [v4(LOOPBACK)]));
    const channelId = await thousandDeliveries(ALTERNATING, 'alternating');
    const counts = await settled(channelId);
    expect(trap.connections).toBe(0);
    const arrived = receiver.received.filter((r) => r.json.channelCode === 'alternating');
    expect(arrived.length).toBe(counts.succeeded);
    expect(counts.succeeded).toBeGreaterThan(0);
    expect(counts.failed).toBeGreaterThan(0);
    expect(arrived.every((r) => r.verifiedWith === 'alternating')).toBe(true);
  }, 90_000);

  it('a name that answers a public and a loopback address at once is refused as a whole', async () => {
    h.dns.set(BOTH, (n) => (n === 1 ? [v4('127.0.0.1')] : [v4('127.0.0.1'), v4(LOOPBACK)]));
    const channelId = await thousandDeliveries(BOTH, 'both');
    expect(await settled(channelId)).toEqual({ failed: 1000 });
    expect(trap.connections).toBe(0);
  }, 90_000);

  it('an IP-literal URL that W1 refuses is never connected to, though no lookup is asked', async () => {
    const channelId = await h.seedChannel(team, 'literal');
    await h.register(channelId, `https://${ONCE_PUBLIC}:${receiver.port}/literal`).catch(() => undefined);
    h.dns.set(ONCE_PUBLIC, [v4('127.0.0.1')]);
    await h.register(channelId, `https://${ONCE_PUBLIC}:${receiver.port}/literal`);
    // As if stored before rule W1 existed.
    await h.sql.query('UPDATE endpoint SET url = $2 WHERE channel_id = $1', [channelId, `https://${LOOPBACK}:${receiver.port}/literal`]);
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(channelId) });
    const row = await eventually(async () => {
      const { rows } = await h.sql.query<{ status: string; last_error: string }>('SELECT status, last_error FROM delivery WHERE channel_id = $1', [channelId]);
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(row.last_error).toContain('non-public-address');
    expect(trap.connections).toBe(0);
  }, 30_000);
});
