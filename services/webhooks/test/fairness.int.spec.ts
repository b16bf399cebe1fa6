import { OrderCreated } from '@pf/platform/events/orders';
import { outgoing } from '@pf/platform/outbox/outbox';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { orderFacts, v4, WebhooksHarness } from './support/harness';
import { createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

const SLOW_HOST = 'slow.hooks-test.dev';
const FAST_HOST = 'fast.hooks-test.dev';
const SLOW_MS = 600;

/**
 * One slow receiver must not starve the others: once a channel is slow (an attempt over
 * WEBHOOK_SLOW_ATTEMPT_MS), it has at most WEBHOOK_CHANNEL_CONCURRENCY attempts in flight and the
 * claims reach the rows queued behind its backlog.
 */
describe('fairness between receivers', () => {
  let cert: TestCertificate;
  let slow: TestReceiver;
  let fast: TestReceiver;
  let h: WebhooksHarness;
  const team = `f${uniqueSuffix()}`;
  /** `n` order-created events of the channel. */
  const events = (channelId: string, n: number) =>
    Array.from({ length: n }, () => {
      const order = orderFacts(channelId);
      return outgoing(OrderCreated, OrderCreated.create(order.orderUuid, { order }));
    });

  beforeAll(async () => {
    cert = createTestCertificate([SLOW_HOST, FAST_HOST]);
    slow = await new TestReceiver(cert).start();
    slow.setDefault({ delayMs: SLOW_MS, status: 200 });
    fast = await new TestReceiver(cert).start();
    h = await WebhooksHarness.start({
      env: {
        WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
        WEBHOOK_EXTRA_CA: cert.certPath,
        WEBHOOK_DELIVERY_CONCURRENCY: '8',
        WEBHOOK_CHANNEL_CONCURRENCY: '2',
        WEBHOOK_SLOW_ATTEMPT_MS: '300',
        WEBHOOK_CLAIM_BATCH: '8',
      },
    });
    h.dns.set(SLOW_HOST, [v4('127.0.0.1')]);
    h.dns.set(FAST_HOST, [v4('127.0.0.1')]);
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
    await slow?.stop();
    await fast?.stop();
    cert?.remove();
  }, 30_000);

  it('a slow receiver queued first holds 2 attempts at a time once it is known slow; the other channel gets its webhooks meanwhile, and everything arrives', async () => {
    const slowChannel = await h.seedChannel(team, 'slow');
    slow.trust('slow', await h.register(slowChannel, `https://${SLOW_HOST}:${slow.port}/hooks`));
    const fastChannel = await h.seedChannel(team, 'fast');
    fast.trust('fast', await h.register(fastChannel, `https://${FAST_HOST}:${fast.port}/hooks`));
    // The slow channel's 24 are queued ahead of the fast channel's 10, in one run.
    await h.bus.publish([...events(slowChannel, 24), ...events(fastChannel, 10)]);

    await eventually(() => (fast.received.length >= 10 ? true : undefined), 15_000, 10);
    // The first claim took 8 of the slow channel's (not yet known slow); from then on it holds 2.
    // Without the limit, the 8 slots would stay the slow channel's until its 24 were all sent, and
    // the fast channel would get nothing before them.
    expect(slow.received.length).toBeLessThanOrEqual(16);

    const all = await eventually(() => (slow.received.length >= 24 ? slow.received : undefined), 30_000, 10);
    expect(all.every((r) => r.verifiedWith === 'slow')).toBe(true);
    expect(new Set(all.map((r) => r.deliveryId)).size).toBe(24);
    expect(fast.received.every((r) => r.verifiedWith === 'fast')).toBe(true);
    // After the first 8, never more than 2 at once at the slow receiver: a third request only after
    // one of two answered.
    const at = all.map((r) => r.at).sort((x, y) => x - y).slice(8);
    for (let i = 0; i + 2 < at.length; i++) expect(at[i + 2]! - at[i]!).toBeGreaterThanOrEqual(SLOW_MS - 50);
    await eventually(async () => ((await h.deliveryCounts()).succeeded === 34 ? true : undefined), 10_000);
  }, 60_000);

  it('several slow receivers together hold half the worker at most: a channel queued behind all of them gets its webhooks meanwhile', async () => {
    await eventually(async () => ((await h.deliveryCounts()).succeeded === 34 ? true : undefined), 10_000);
    const slowBefore = slow.received.length;
    const fastBefore = fast.received.length;
    const slowChannels: string[] = [];
    for (let i = 0; i < 4; i++) {
      const channel = await h.seedChannel(team, `slow${i}`);
      slow.trust(`slow${i}`, await h.register(channel, `https://${SLOW_HOST}:${slow.port}/hooks`));
      slowChannels.push(channel);
    }
    const fastChannel = await h.seedChannel(team, 'fast2');
    fast.trust('fast2', await h.register(fastChannel, `https://${FAST_HOST}:${fast.port}/hooks`));
    // One webhook each first: the worker then knows the four are slow (as it would after any slow answer).
    await h.bus.publish(slowChannels.flatMap((c) => events(c, 1)));
    await eventually(() => (slow.received.length - slowBefore >= 4 ? true : undefined), 15_000, 10);
    await eventually(async () => ((await h.deliveryCounts()).succeeded === 38 ? true : undefined), 10_000);
    const slowWarm = slow.received.length;
    // Then their 8 each, and the fast channel's 10 behind them. Each slow channel alone stays within
    // its 2; together, without a limit of their own, they would take all 8 slots until their 32
    // were sent (4 rounds of SLOW_MS), and the fast channel would wait behind them.
    await h.bus.publish([...slowChannels.flatMap((c) => events(c, 8)), ...events(fastChannel, 10)]);
    await eventually(() => (fast.received.length - fastBefore >= 10 ? true : undefined), 15_000, 10);
    // At most 4 slow attempts at a time: the fast channel's 10 went out in the first round or two.
    expect(slow.received.length - slowWarm).toBeLessThanOrEqual(12);
    await eventually(() => (slow.received.length - slowWarm >= 32 ? true : undefined), 30_000, 10);
  }, 60_000);
});
