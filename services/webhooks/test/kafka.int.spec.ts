import { Kafka, logLevel } from 'kafkajs';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ChannelUpdated } from '@pf/platform/events/accounts';
import { OrderCreated, OrderStatusChanged } from '@pf/platform/events/orders';
import { createLogger } from '@pf/platform/logging';
import { eventually, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { orderFacts, v4, WebhooksHarness } from './support/harness';
import { createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

const HOST = 'kafka.hooks-test.dev';

/** The production wiring's bus: events come from a real Kafka broker (KRaft, scripts/kafka). */
describe('webhooks on a real Kafka broker', () => {
  const prefix = `pf-test-webhooks-${uniqueSuffix()}.`;
  const logger = createLogger('webhooks-kafka-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const busOptions = { brokers: testInfra.kafkaBrokers, topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } };
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let producer: KafkaEventBus;
  let h: WebhooksHarness;
  const team = `f${uniqueSuffix()}`;

  beforeAll(async () => {
    cert = createTestCertificate([HOST]);
    receiver = await new TestReceiver(cert).start();
    producer = new KafkaEventBus({ ...busOptions, clientId: 'webhooks-test-producer' });
    // Topics exist before the consumers join, so they start at the beginning of each.
    await producer.ensureTopics(['accounts.teams', 'accounts.channels', 'orders.orders', 'stock.stock-levels']);
    h = await WebhooksHarness.start({
      bus: new KafkaEventBus({ ...busOptions, clientId: 'webhooks-test' }),
      env: { WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32', WEBHOOK_EXTRA_CA: cert.certPath },
    });
    h.dns.set(HOST, [v4('127.0.0.1')]);
  }, 60_000);
  afterAll(async () => {
    await h?.stopService();
    await h?.bus.close();
    await h?.db.drop();
    await producer?.close();
    await receiver?.stop();
    cert?.remove();
    const admin = new Kafka({ brokers: testInfra.kafkaBrokers, clientId: 'webhooks-test-cleanup', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  }, 60_000);

  it('consumes accounts and orders events from Kafka and sends their webhooks; deactivation from Kafka stops new ones', async () => {
    const channelId = await h.seedChannel(team, 'shop'); // published on the harness bus: Kafka
    receiver.trust('shop', await h.register(channelId, `https://${HOST}:${receiver.port}/kafka`));
    const order = orderFacts(channelId);
    await producer.publish([
      { topic: OrderCreated.topic, event: OrderCreated.create(order.orderUuid, { order }) },
      { topic: OrderStatusChanged.topic, event: OrderStatusChanged.create(order.orderUuid, { order: { ...order, status: 'queued' }, originalStatus: 'draft', currentStatus: 'queued' }) },
    ]);
    const got = await eventually(() => (receiver.received.length >= 2 ? receiver.received : undefined), 30_000);
    expect(got.map((r) => r.json.notificationType)).toEqual(['order-created', 'order-status-updated']);
    expect(got.every((r) => r.verifiedWith === 'shop')).toBe(true);

    await producer.publish([{ topic: ChannelUpdated.topic, event: ChannelUpdated.create(channelId, { channelId, teamCode: team, channelCode: 'shop', name: 'shop', active: false, standard: false }) }]);
    await eventually(async () => ((await h.sql.query('SELECT active FROM channel WHERE channel_id = $1', [channelId])).rows[0]?.active === false ? true : undefined), 30_000);
    const later = orderFacts(channelId);
    await producer.publish([{ topic: OrderCreated.topic, event: OrderCreated.create(later.orderUuid, { order: later }) }]);
    await eventually(async () => ((await h.sql.query('SELECT 1 FROM order_view WHERE order_uuid = $1', [later.orderUuid])).rowCount ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(2);
  }, 90_000);
});
