import { randomUUID } from 'node:crypto';
import {
  FulfilmentStatusChanged,
  FulfilmentTrackingCreated,
  OrderCreated,
  OrderFulfillableStatusChanged,
  OrderRevised,
  OrderStatusChanged,
} from '@pf/platform/events/orders';
import type { Identity } from '@pf/platform/identity';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { deleteFinishedBefore } from '../src/repositories/deliveries';
import { orderFacts, v4, WebhooksHarness } from './support/harness';
import { createTestCertificate, TestReceiver, type Received, type TestCertificate } from './support/receiver';

const HOST = 'receiver.hooks-test.dev';
const REDIRECT_HOST = 'elsewhere.hooks-test.dev';
const MOVING_HOST = 'moving.hooks-test.dev';
const WRONG_CERT_HOST = 'unlisted.hooks-test.dev';
const DELAYS = [0.3, 0.6, 0.9, 1.2];

const COMMON = ['notificationType', 'tenantCode', 'channelCode', 'orderUuid', 'orderNumber', 'message', 'createdAt', 'updatedAt', 'confirmedAt'];

/**
 * Delivery end to end: events on the bus, the real service, and a real HTTPS receiver on
 * 127.0.0.1 (allowed for this test only through WEBHOOK_ALLOW_PRIVATE_RANGES, its self-signed
 * certificate trusted through WEBHOOK_EXTRA_CA, its name resolved through the injected resolver)
 * that verifies every signature over the raw bytes itself.
 */
describe('webhook delivery to a real HTTPS receiver', () => {
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let elsewhere: TestReceiver;
  let h: WebhooksHarness;
  const team = `d${uniqueSuffix()}`;

  beforeAll(async () => {
    cert = createTestCertificate([HOST, REDIRECT_HOST, MOVING_HOST]);
    receiver = await new TestReceiver(cert).start();
    elsewhere = await new TestReceiver(cert).start();
    h = await WebhooksHarness.start({
      env: {
        WEBHOOK_RETRY_DELAYS_SECONDS: DELAYS.join(','),
        WEBHOOK_TIMEOUT_MS: '400',
        WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
        WEBHOOK_EXTRA_CA: cert.certPath,
      },
    });
    h.dns.set(HOST, [v4('127.0.0.1')]);
    h.dns.set(REDIRECT_HOST, [v4('127.0.0.1')]);
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
    await receiver?.stop();
    await elsewhere?.stop();
    cert?.remove();
  }, 30_000);

  /** A fresh channel with its URL registered; its webhooks are told apart by channel code. */
  async function channelWithUrl(code: string, path = `/hooks/${code}/{notificationType}?type={notificationType}`) {
    const channelId = await h.seedChannel(team, code);
    const secret = await h.register(channelId, `https://${HOST}:${receiver.port}${path}`);
    receiver.trust(code, secret);
    return { channelId, secret, code };
  }
  const to = (code: string) => receiver.received.filter((r) => r.json.channelCode === code);
  const arrived = (code: string, n: number) => eventually(() => (to(code).length >= n ? to(code) : undefined), 20_000);

  it('sends every order and fulfilment notification with the members of section 6, signed over the exact bytes', async () => {
    const { channelId, code } = await channelWithUrl('types');
    const order = orderFacts(channelId, { orderNumber: 'SO/42', confirmedAt: null });
    const confirmed = { ...order, status: 'processing', confirmedAt: new Date().toISOString(), updatedAt: new Date(Date.now() + 1000).toISOString() };
    await h.publish(OrderCreated, order.orderUuid, { order });
    await h.publish(OrderStatusChanged, order.orderUuid, { order: confirmed, originalStatus: 'draft', currentStatus: 'processing' });
    await h.publish(OrderFulfillableStatusChanged, order.orderUuid, { order: { ...confirmed, fulfillableStatus: 'not-fulfillable' }, originalFulfillableStatus: 'fulfillable', currentFulfillableStatus: 'not-fulfillable' });
    await h.publish(OrderRevised, order.orderUuid, { order: confirmed, reason: 'amended' }); // an amend sends no webhook
    const fulfilmentUuid = randomUUID();
    await h.publish(FulfilmentStatusChanged, order.orderUuid, { order: confirmed, fulfilmentUuid, originalStatus: 'draft', currentStatus: 'dispatched', skus: ['SKU/1', 'SKU-2'] });
    await h.publish(FulfilmentTrackingCreated, order.orderUuid, {
      order: confirmed,
      fulfilmentUuid,
      trackingDetails: [{ carrier: 'DHL', trackingNumber: 'JD01', trackingUrl: 'https://track.example.com/JD01', methodCode: 'dhl-express', methodName: 'DHL Express' }],
    });
    const got = await arrived(code, 5);
    const byType = (t: string) => got.find((r) => r.json.notificationType === t)!;

    for (const r of got) {
      expect(r.verifiedWith).toBe(code);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['service-api-version']).toBe('1.2.0');
      expect(r.headers.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(r.path).toBe(`/hooks/${code}/${String(r.json.notificationType)}?type=${String(r.json.notificationType)}`);
      expect(r.json).toMatchObject({ tenantCode: team, channelCode: code, orderUuid: order.orderUuid, orderNumber: 'SO/42' });
      // Forward slashes go out escaped: re-serialising would change the bytes (and the signature).
      expect(r.body.toString()).toContain('"orderNumber":"SO\\/42"');
    }
    expect(Object.keys(byType('order-created').json)).toEqual([...COMMON, 'orderStatus', 'fulfillableStatus']);
    expect(byType('order-created').json).toMatchObject({ confirmedAt: null, orderStatus: 'draft', message: 'Order "SO/42" has been created' });
    expect(Object.keys(byType('order-status-updated').json)).toEqual([...COMMON, 'originalOrderStatus', 'currentOrderStatus']);
    expect(byType('order-status-updated').json).toMatchObject({
      originalOrderStatus: 'draft',
      currentOrderStatus: 'processing',
      confirmedAt: new Date(confirmed.confirmedAt).toISOString(),
      message: 'Order "SO/42" status has changed from "draft" to "processing"',
    });
    expect(Object.keys(byType('order-fulfillable-status-updated').json)).toEqual([...COMMON, 'originalFulfillableStatus', 'currentFulfillableStatus', 'orderStatus']);
    expect(Object.keys(byType('fulfilment-status-updated').json)).toEqual([...COMMON, 'originalFulfilmentStatus', 'currentFulfilmentStatus', 'orderStatus', 'products', 'fulfilmentUuid']);
    expect(byType('fulfilment-status-updated').json).toMatchObject({ products: ['SKU/1', 'SKU-2'], currentFulfilmentStatus: 'dispatched', orderStatus: 'processing', fulfilmentUuid });
    expect(byType('fulfilment-tracking-created').json.currentTrackingDetails).toEqual([
      { carrier: 'DHL', trackingNumber: 'JD01', trackingUrl: 'https://track.example.com/JD01', courier: 'DHL', number: 'JD01', url: 'https://track.example.com/JD01', methodCode: 'dhl-express', methodName: 'DHL Express' },
    ]);
    // Nothing for the amendment, and each event once.
    await new Promise((r) => setTimeout(r, 300));
    expect(to(code)).toHaveLength(5);
  }, 30_000);

  it('sends only API orders, only to the channel they were created on, and once per event however often it is delivered', async () => {
    const a = await channelWithUrl('scope-a');
    const b = await channelWithUrl('scope-b');
    const apiOrder = orderFacts(a.channelId);
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(a.channelId, { origin: 'merchant-app' }) });
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(a.channelId, { origin: 'import' }) });
    const event = OrderCreated.create(apiOrder.orderUuid, { order: apiOrder });
    await h.bus.publish([{ topic: OrderCreated.topic, event }, { topic: OrderCreated.topic, event }]);
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(b.channelId) });
    await arrived('scope-a', 1);
    await arrived('scope-b', 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(to('scope-a').map((r) => r.json.orderUuid)).toEqual([apiOrder.orderUuid]);
    expect(to('scope-b')).toHaveLength(1);
  }, 30_000);

  it('sends nothing to a channel without a URL', async () => {
    const channelId = await h.seedChannel(team, 'nourl');
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(channelId) });
    await eventually(async () => ((await h.sql.query("SELECT 1 FROM order_view WHERE channel_id = $1", [channelId])).rowCount ? true : undefined));
    expect((await h.sql.query('SELECT count(*)::int AS n FROM delivery WHERE channel_id = $1', [channelId])).rows[0].n).toBe(0);
  });

  it('retries a 500, a 302 (never followed) and a time-out on schedule, then succeeds; every attempt is logged', async () => {
    const { channelId, code } = await channelWithUrl('retry');
    receiver.answer({ status: 500 }, { status: 302, location: `https://${REDIRECT_HOST}:${elsewhere.port}/stolen` }, { hang: true });
    const order = orderFacts(channelId);
    await h.publish(OrderCreated, order.orderUuid, { order });
    const got = await arrived(code, 4);
    expect(got.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
    expect(new Set(got.map((r) => r.deliveryId)).size).toBe(1);
    // Same bytes, same signature on every attempt.
    expect(new Set(got.map((r) => r.body.toString('base64'))).size).toBe(1);
    expect(new Set(got.map((r) => r.headers.signature)).size).toBe(1);
    // Waits of at least 0.3 s, 0.6 s, 0.9 s (+ the 0.4 s time-out before the last one).
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(300 - 20);
    expect(gaps[1]).toBeGreaterThanOrEqual(600 - 20);
    expect(gaps[2]).toBeGreaterThanOrEqual(900 + 400 - 20);
    expect(elsewhere.received).toHaveLength(0);
    expect(elsewhere.connections).toBe(0);

    const backoffice: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };
    const log = await eventually(async () => {
      const res = await h.graphql<{ webhookDeliveries: { items: { status: string; attemptCount: number; maxAttempts: number; attempts: Record<string, unknown>[] }[] } }>(
        backoffice,
        `query($c: ID!) { webhookDeliveries(channelId: $c) { items { id status attemptCount maxAttempts nextAttemptAt lastStatusCode
           attempts { number statusCode outcome durationMs error nextAttemptAt url } } nextCursor } }`,
        { c: channelId },
      );
      const item = res.data?.webhookDeliveries.items[0];
      return item?.status === 'SUCCEEDED' ? item : undefined;
    });
    expect(log).toMatchObject({ attemptCount: 4, maxAttempts: 5 });
    expect(log.attempts.map((a) => [a.number, a.statusCode, a.outcome])).toEqual([
      [1, 500, 'FAILED'],
      [2, 302, 'FAILED'],
      [3, null, 'FAILED'],
      [4, 200, 'SUCCEEDED'],
    ]);
    expect(log.attempts[1]!.error).toBe('redirect 302 not followed');
    expect(log.attempts[2]!.error).toMatch(/timeout/i);
    expect(log.attempts.slice(0, 3).every((a) => typeof a.nextAttemptAt === 'string')).toBe(true);
    expect(log.attempts[3]!.nextAttemptAt).toBeNull();
    expect(log.attempts.every((a) => typeof a.durationMs === 'number' && String(a.url).startsWith(`https://${HOST}:`))).toBe(true);
  }, 30_000);

  it('fails a delivery after 5 attempts; a manual redelivery sends the same bytes, signed when queued (after a rotation: with the new secret)', async () => {
    const { channelId, code, secret: old } = await channelWithUrl('exhaust');
    receiver.trust('exhaust-old', old);
    receiver.answer(...Array.from({ length: 5 }, () => ({ status: 503 })));
    const order = orderFacts(channelId);
    await h.publish(OrderCreated, order.orderUuid, { order });
    const five = await arrived(code, 5);
    const deliveryId = five[0]!.deliveryId;
    const backoffice: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };
    const failed = await eventually(async () => {
      const res = await h.graphql<{ webhookDelivery: { status: string; lastError: string } }>(backoffice, `{ webhookDelivery(id: "${deliveryId}") { status lastError } }`);
      return res.data?.webhookDelivery?.status === 'FAILED' ? res.data.webhookDelivery : undefined;
    });
    expect(failed.lastError).toContain('HTTP 503');
    expect(five.every((r) => r.verifiedWith === 'exhaust-old')).toBe(true);
    receiver.trust(code, await h.rotate(channelId));
    const again = await h.graphql<{ redeliverWebhook: { id: string; origin: string; redeliveryOf: string; signature: string } }>(
      backoffice,
      'mutation($d: ID!) { redeliverWebhook(deliveryId: $d) { id origin redeliveryOf signature } }',
      { d: deliveryId },
    );
    expect(again.data!.redeliverWebhook).toMatchObject({ origin: 'REDELIVERY', redeliveryOf: deliveryId });
    const six = await arrived(code, 6);
    expect(six[5]!.deliveryId).toBe(again.data!.redeliverWebhook.id);
    expect(six[5]!.body.equals(five[0]!.body)).toBe(true);
    expect(six[5]!.headers.signature).not.toBe(five[0]!.headers.signature);
    expect(six[5]!.verifiedWith).toBe(code);
    expect(again.data!.redeliverWebhook.signature).toBe(six[5]!.headers.signature);
    // Only a failed delivery can be redelivered; integrations cannot.
    const twice = await h.graphql(backoffice, 'mutation($d: ID!) { redeliverWebhook(deliveryId: $d) { id } }', { d: again.data!.redeliverWebhook.id });
    expect(twice.errors?.[0]?.extensions?.problem?.problemType).toMatch(/conflict/);
    const integration = await h.graphql({ kind: 'channel', teamCode: team, channelId }, 'mutation($d: ID!) { redeliverWebhook(deliveryId: $d) { id } }', { d: deliveryId });
    expect(integration.errors?.[0]?.extensions?.problem?.problemType).toBe('forbidden');
  }, 30_000);

  /** A channel with a URL and an order-created delivery to it that failed (five 500s), and a back-office user. */
  async function failedDelivery(label: string) {
    const { channelId, code } = await channelWithUrl(label);
    receiver.answer(...Array.from({ length: 5 }, () => ({ status: 500 })));
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(channelId) });
    const original = (await arrived(code, 5))[0]!.deliveryId;
    await eventually(async () => ((await h.sql.query("SELECT 1 FROM delivery WHERE id = $1 AND status = 'failed'", [original])).rowCount ? true : undefined));
    const backoffice: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };
    return { channelId, code, original, backoffice };
  }

  it('a redelivery asked for again while the first is still waiting answers that one (a double click queues one)', async () => {
    const { original, backoffice } = await failedDelivery('redeliver-twice');
    const redeliver = async () =>
      (await h.graphql<{ redeliverWebhook: { id: string } }>(backoffice, 'mutation($d: ID!) { redeliverWebhook(deliveryId: $d) { id } }', { d: original })).data!.redeliverWebhook.id;
    // The receiver hangs: the redelivery stays open (being sent, then waiting to be retried).
    receiver.setDefault({ hang: true });
    try {
      const ids = await Promise.all([redeliver(), redeliver(), redeliver()]);
      ids.push(await redeliver());
      expect(new Set(ids).size).toBe(1);
      const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM delivery WHERE redelivery_of = $1', [original]);
      expect(rows[0].n).toBe(1);
    } finally {
      // Ended here, so that its later attempts take no answer the receiver scripts for other tests.
      await h.sql.query("UPDATE delivery SET status = 'failed', next_attempt_at = NULL, lease_token = NULL WHERE redelivery_of = $1", [original]);
      receiver.setDefault({ status: 200 });
    }
  }, 30_000);

  it('the delivery log keeps finished deliveries for the retention period; a redelivery outlives its original', async () => {
    const { channelId, code, original, backoffice } = await failedDelivery('retention');
    const again = await h.graphql<{ redeliverWebhook: { id: string } }>(backoffice, 'mutation($d: ID!) { redeliverWebhook(deliveryId: $d) { id } }', { d: original });
    const redelivery = again.data!.redeliverWebhook.id;
    await eventually(async () => ((await h.sql.query("SELECT 1 FROM delivery WHERE id = $1 AND status = 'succeeded'", [redelivery])).rowCount ? true : undefined));
    await h.sql.query("UPDATE delivery SET completed_at = now() - interval '31 days' WHERE id = $1", [original]);
    expect(await deleteFinishedBefore(h.sql, 30)).toBe(1);
    expect((await h.sql.query('SELECT count(*)::int AS n FROM delivery_attempt WHERE delivery_id = $1', [original])).rows[0].n).toBe(0);
    expect((await h.sql.query('SELECT redelivery_of, status FROM delivery WHERE id = $1', [redelivery])).rows[0]).toEqual({ redelivery_of: null, status: 'succeeded' });
  }, 30_000);

  it('a receiver whose name starts resolving to a private address between attempts gets no further request', async () => {
    const name = MOVING_HOST;
    h.dns.set(name, [v4('127.0.0.1')]);
    const channelId = await h.seedChannel(team, 'moving');
    const secret = await h.register(channelId, `https://${name}:${receiver.port}/moving`);
    receiver.trust('moving', secret);
    receiver.answer({ status: 500 });
    const order = orderFacts(channelId);
    await h.publish(OrderCreated, order.orderUuid, { order });
    await arrived('moving', 1);
    h.dns.set(name, [v4('10.0.0.7')]);
    const row = await eventually(async () => {
      const { rows } = await h.sql.query<{ status: string; last_error: string; attempt_count: number }>('SELECT status, last_error, attempt_count FROM delivery WHERE channel_id = $1', [channelId]);
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(row.attempt_count).toBe(2);
    expect(row.last_error).toContain('resolves-to-non-public-address');
    const attempts = await h.sql.query<{ outcome: string }>('SELECT outcome FROM delivery_attempt a JOIN delivery d ON d.id = a.delivery_id WHERE d.channel_id = $1 ORDER BY attempt_number', [channelId]);
    expect(attempts.rows.map((a) => a.outcome)).toEqual(['failed', 'refused']);
    await new Promise((r) => setTimeout(r, DELAYS[1]! * 1000 + 300));
    expect(to('moving')).toHaveLength(1);
  }, 30_000);

  it('verifies TLS against the host name: a certificate for other names is a failed attempt, nothing is sent', async () => {
    h.dns.set(WRONG_CERT_HOST, [v4('127.0.0.1')]);
    const channelId = await h.seedChannel(team, 'wrongcert');
    await h.register(channelId, `https://${WRONG_CERT_HOST}:${receiver.port}/wrongcert`);
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(channelId) });
    const attempt = await eventually(async () => {
      const { rows } = await h.sql.query<{ outcome: string; error: string; status_code: number | null }>(
        'SELECT outcome, error, status_code FROM delivery_attempt a JOIN delivery d ON d.id = a.delivery_id WHERE d.channel_id = $1',
        [channelId],
      );
      return rows[0];
    });
    expect(attempt).toMatchObject({ outcome: 'failed', status_code: null });
    expect(attempt.error).toMatch(/altname|certificate/i);
    expect(to('wrongcert')).toHaveLength(0);
  }, 30_000);

  it('a URL that W1 now refuses (registered before 1.2.0 as http://) is never sent and fails with the reason', async () => {
    const channelId = await h.seedChannel(team, 'legacy');
    await h.register(channelId, `https://${HOST}:${receiver.port}/legacy`);
    await h.sql.query('UPDATE endpoint SET url = $2 WHERE channel_id = $1', [channelId, `http://${HOST}:${receiver.port}/legacy`]);
    await h.publish(OrderCreated, randomUUID(), { order: orderFacts(channelId) });
    const row = await eventually(async () => {
      const { rows } = await h.sql.query<{ status: string; last_error: string }>('SELECT status, last_error FROM delivery WHERE channel_id = $1', [channelId]);
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(row.last_error).toContain('not-https');
    expect(to('legacy')).toHaveLength(0);
  }, 30_000);

  it('rotation mid-queue: queued webhooks and their retries keep the old signature, later ones get the new secret', async () => {
    const { channelId, code, secret: old } = await channelWithUrl('rotation');
    receiver.trust('rotation-old', old);
    const before = [orderFacts(channelId), orderFacts(channelId), orderFacts(channelId)];
    receiver.answer({ status: 500 }, { status: 500 }, { status: 500 });
    for (const o of before) await h.publish(OrderCreated, o.orderUuid, { order: o });
    await arrived(code, 3);
    const fresh = await h.rotate(channelId);
    receiver.trust(code, fresh);
    const after = orderFacts(channelId);
    await h.publish(OrderCreated, after.orderUuid, { order: after });
    const got = await arrived(code, 7);
    const beforeIds = new Set(before.map((o) => o.orderUuid));
    for (const r of got) {
      expect(r.verifiedWith).toBe(beforeIds.has(String(r.json.orderUuid)) ? 'rotation-old' : code);
    }
    expect(got.filter((r) => beforeIds.has(String(r.json.orderUuid))).map((r) => r.attempt).sort()).toEqual([1, 1, 1, 2, 2, 2]);
    // A resend after rotation is signed with the new secret.
    const resent = await h.graphql({ kind: 'channel', teamCode: team, channelId }, 'mutation($o: ID!) { resendWebhook(orderUuid: $o, notificationType: "order-created") { deliveryId } }', { o: before[0]!.orderUuid });
    expect(resent.errors).toBeUndefined();
    expect((await arrived(code, 8))[7]!.verifiedWith).toBe(code);
  }, 30_000);

  it('a rotation made by another replica is seen by the next event: it is signed with the new secret', async () => {
    const { channelId, code } = await channelWithUrl('replica-rotation');
    const first = orderFacts(channelId);
    await h.publish(OrderCreated, first.orderUuid, { order: first }); // this replica now has the registration cached
    await arrived(code, 1);
    const other = await WebhooksHarness.start({ db: h.db, resolver: h.dns, env: { WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32', WEBHOOK_EXTRA_CA: cert.certPath } });
    try {
      const fresh = await other.rotate(channelId);
      receiver.trust(`${code}-new`, fresh);
    } finally {
      await other.stopReplica();
    }
    const second = orderFacts(channelId);
    await h.publish(OrderCreated, second.orderUuid, { order: second });
    const got = await arrived(code, 2);
    expect(got[1]!.json.orderUuid).toBe(second.orderUuid);
    expect(got[1]!.verifiedWith).toBe(`${code}-new`);
  }, 30_000);

  it('deactivating a channel stops new webhooks; a retry queued before still goes', async () => {
    const { channelId, code } = await channelWithUrl('deactivated');
    receiver.answer({ status: 500 });
    const queued = orderFacts(channelId);
    await h.publish(OrderCreated, queued.orderUuid, { order: queued });
    await arrived(code, 1);
    await h.setChannelActive(team, 'deactivated', false);
    const later = orderFacts(channelId);
    await h.publish(OrderCreated, later.orderUuid, { order: later });
    await eventually(async () => ((await h.sql.query('SELECT 1 FROM order_view WHERE order_uuid = $1', [later.orderUuid])).rowCount ? true : undefined));
    const retried = await arrived(code, 2);
    expect(retried[1]).toMatchObject({ attempt: 2, json: expect.objectContaining({ orderUuid: queued.orderUuid }) });
    await new Promise((r) => setTimeout(r, 500));
    expect(to(code).map((r) => r.json.orderUuid)).toEqual([queued.orderUuid, queued.orderUuid]);
    expect((await h.sql.query('SELECT count(*)::int AS n FROM delivery WHERE channel_id = $1', [channelId])).rows[0].n).toBe(1);
    // Reactivated: new webhooks again.
    await h.setChannelActive(team, 'deactivated', true);
    const third = orderFacts(channelId);
    await h.publish(OrderCreated, third.orderUuid, { order: third });
    expect((await arrived(code, 3))[2]!.json.orderUuid).toBe(third.orderUuid);
  }, 30_000);

  describe('resend (POST /webhooks/resend)', () => {
    const RESEND = 'mutation($o: ID!, $t: String!) { resendWebhook(orderUuid: $o, notificationType: $t) { deliveryId notificationType orderUuid status queuedAt } }';

    it('sends the current state; a resent order-status-updated has originalOrderStatus null', async () => {
      const { channelId, code } = await channelWithUrl('resend');
      const order = orderFacts(channelId, { orderNumber: 'R-1' });
      await h.publish(OrderCreated, order.orderUuid, { order });
      const held = { ...order, status: 'holding', updatedAt: new Date(Date.now() + 1000).toISOString() };
      await h.publish(OrderStatusChanged, order.orderUuid, { order: held, originalStatus: 'draft', currentStatus: 'holding' });
      await arrived(code, 2);
      const who: Identity = { kind: 'channel', teamCode: team, channelId };
      const res = await h.graphql<{ resendWebhook: { deliveryId: string; status: string } }>(who, RESEND, { o: order.orderUuid, t: 'order-status-updated' });
      expect(res.data!.resendWebhook).toMatchObject({ status: 'PENDING', notificationType: 'order-status-updated', orderUuid: order.orderUuid });
      const got: Received = (await arrived(code, 3))[2]!;
      expect(got.deliveryId).toBe(res.data!.resendWebhook.deliveryId);
      expect(got.json).toMatchObject({ notificationType: 'order-status-updated', originalOrderStatus: null, currentOrderStatus: 'holding', message: 'Order "R-1" status has changed from "" to "holding"' });
      const fulfillable = await h.graphql(who, RESEND, { o: order.orderUuid, t: 'order-fulfillable-status-updated' });
      expect(fulfillable.errors).toBeUndefined();
      expect((await arrived(code, 4))[3]!.json).toMatchObject({ originalFulfillableStatus: null, currentFulfillableStatus: 'fulfillable', orderStatus: 'holding' });
      // The channel's own order with a type that is not resent: only the type is named.
      const badType = await h.graphql(who, RESEND, { o: order.orderUuid, t: 'fulfilment-status-updated' });
      expect(badType.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'notificationType' }] });
    }, 30_000);

    it('answers the webhook already waiting for a repeated request (same order, type, bytes and secret); a changed order or a rotated secret makes a new one', async () => {
      const { channelId, code } = await channelWithUrl('resend-repeat');
      const order = orderFacts(channelId, { orderNumber: 'R-2' });
      await h.publish(OrderCreated, order.orderUuid, { order });
      await arrived(code, 1);
      const who: Identity = { kind: 'channel', teamCode: team, channelId };
      const answers: { deliveryId: string; queuedAt: string }[] = [];
      const resend = async () => {
        const answer = (await h.graphql<{ resendWebhook: { deliveryId: string; queuedAt: string } }>(who, RESEND, { o: order.orderUuid, t: 'order-status-updated' })).data!.resendWebhook;
        answers.push(answer);
        return answer.deliveryId;
      };
      const resends = async () => (await h.sql.query("SELECT count(*)::int AS n FROM delivery WHERE channel_id = $1 AND origin = 'resend'", [channelId])).rows[0].n;
      // The receiver hangs: the first resend stays open (being sent, then waiting to be retried) for seconds.
      receiver.setDefault({ hang: true });
      try {
        const first = await resend();
        expect(await resend()).toBe(first);
        expect(await resend()).toBe(first);
        expect(await resends()).toBe(1);
        // Every answer tells when the delivery was queued, as stored: the first one too.
        const { rows } = await h.sql.query('SELECT created_at FROM delivery WHERE id = $1', [first]);
        expect(answers.map((a) => Date.parse(a.queuedAt))).toEqual(Array(3).fill((rows[0].created_at as Date).getTime()));
        // The order changed: another webhook (other bytes), though the first is still open.
        const held = { ...order, status: 'holding', updatedAt: new Date(Date.now() + 1000).toISOString() };
        await h.publish(OrderStatusChanged, order.orderUuid, { order: held, originalStatus: 'draft', currentStatus: 'holding' });
        await eventually(async () => ((await h.sql.query("SELECT 1 FROM order_view WHERE order_uuid = $1 AND status = 'holding'", [order.orderUuid])).rowCount ? true : undefined));
        const afterChange = await resend();
        expect(afterChange).not.toBe(first);
        // A rotated secret: another webhook (signed with the new one).
        receiver.trust('resend-repeat-new', await h.rotate(channelId));
        const afterRotation = await resend();
        expect(new Set([first, afterChange, afterRotation]).size).toBe(3);
        expect(await resends()).toBe(3);
      } finally {
        receiver.setDefault({ status: 200 });
      }
    }, 30_000);

    it('answers the same 422 for an unknown order and for one the channel may not see (rule O1)', async () => {
      const { channelId } = await channelWithUrl('resend-o1');
      const sibling = await channelWithUrl('resend-o1-sibling');
      const merchant = orderFacts(channelId, { origin: 'merchant-app' });
      const siblings = orderFacts(sibling.channelId);
      await h.publish(OrderCreated, merchant.orderUuid, { order: merchant });
      await h.publish(OrderCreated, siblings.orderUuid, { order: siblings });
      await eventually(async () => ((await h.sql.query('SELECT 1 FROM order_view WHERE order_uuid = ANY($1::uuid[])', [[merchant.orderUuid, siblings.orderUuid]])).rowCount === 2 ? true : undefined));
      const who: Identity = { kind: 'channel', teamCode: team, channelId };
      const answers = [];
      for (const o of [randomUUID(), merchant.orderUuid, siblings.orderUuid, 'not-a-uuid']) {
        const res = await h.graphql(who, RESEND, { o, t: 'order-created' });
        answers.push({ message: res.errors?.[0]?.message, problem: res.errors?.[0]?.extensions?.problem });
      }
      expect(answers[0]!.problem).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'orderUuid' }] });
      for (const a of answers) expect(a).toEqual(answers[0]);
      // Every field at fault named at once; an invisible order as a nonexistent one.
      const badType = await h.graphql(who, RESEND, { o: siblings.orderUuid, t: 'fulfilment-status-updated' });
      expect(badType.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'orderUuid' }, { property: 'notificationType' }] });
      expect((await h.graphql(who, RESEND, { o: randomUUID(), t: 'fulfilment-status-updated' })).errors?.[0]?.extensions?.problem).toEqual(badType.errors?.[0]?.extensions?.problem);
    }, 30_000);
  });
});
