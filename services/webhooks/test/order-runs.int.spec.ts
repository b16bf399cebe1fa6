import { randomUUID } from 'node:crypto';
import { OrderCreated, OrderRevised, OrderStatusChanged } from '@pf/platform/events/orders';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { uniqueSuffix } from '@pf/platform/testing/infra';
import { signBody } from '../src/domain/notifications';
import { applyOrderEvents } from '../src/use-cases/order-events';
import { orderFacts, v4, WebhooksHarness } from './support/harness';

const HOST = 'runs.hooks-test.dev';

/**
 * The order consumer applies a run of events in one statement. These tests hand runs to it
 * directly (the worker is stopped, so the queued rows stay as written) and check that a run does
 * what applying its events one by one would do.
 */
describe('order events applied in runs', () => {
  let h: WebhooksHarness;
  const team = `o${uniqueSuffix()}`;

  beforeAll(async () => {
    h = await WebhooksHarness.start();
    h.dns.set(HOST, [v4('93.184.216.34')]);
    await h.instance.worker.stop();
  }, 30_000);
  afterAll(() => h?.stop(), 30_000);

  async function channelWithUrl(code: string) {
    const channelId = await h.seedChannel(team, code);
    const secret = await h.register(channelId, `https://${HOST}/${code}`);
    return { channelId, secret };
  }
  const later = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
  const deliveriesOf = async (channelId: string) =>
    (
      await h.sql.query<{ order_uuid: string; notification_type: string; source_event_id: string; body: Buffer; signature: string; secret_version: number }>(
        'SELECT order_uuid, notification_type, source_event_id, body, signature, secret_version FROM delivery WHERE channel_id = $1 ORDER BY seq',
        [channelId],
      )
    ).rows;
  const viewOf = async (orderUuid: string) => (await h.sql.query('SELECT status, updated_at FROM order_view WHERE order_uuid = $1', [orderUuid])).rows[0];

  it('does what its events one by one would: each event once, the newest state of an order, deliveries in event order', async () => {
    const a = await channelWithUrl('run-a');
    const b = await channelWithUrl('run-b');
    const x = orderFacts(a.channelId);
    const xConfirmed = { ...x, status: 'processing', confirmedAt: later(x.createdAt, 500), updatedAt: later(x.createdAt, 500) };
    const y = orderFacts(b.channelId);
    const merchant = orderFacts(a.channelId, { origin: 'merchant-app' });
    const earlier = OrderCreated.create(merchant.orderUuid, { order: merchant });
    expect(await applyOrderEvents(h.instance.deps, [earlier])).toEqual(['applied']);

    const xCreated = OrderCreated.create(x.orderUuid, { order: x });
    const xStatus = OrderStatusChanged.create(x.orderUuid, { order: xConfirmed, originalStatus: 'draft', currentStatus: 'processing' });
    const yCreated = OrderCreated.create(y.orderUuid, { order: y });
    const xRevised = OrderRevised.create(x.orderUuid, { order: { ...x, updatedAt: later(x.createdAt, 100) }, reason: 'amended' });
    const run: EventEnvelope[] = [xCreated, yCreated, xStatus, yCreated, xRevised, earlier, { ...xCreated, id: randomUUID(), type: 'order.unknown' }];
    expect(await applyOrderEvents(h.instance.deps, run)).toEqual(['applied', 'applied', 'applied', 'duplicate', 'applied', 'duplicate', 'ignored']);

    // The newest updatedAt wins, whatever the order of the run (the revision is older than the status change).
    expect(await viewOf(x.orderUuid)).toMatchObject({ status: 'processing', updated_at: new Date(xConfirmed.updatedAt) });
    expect(await viewOf(merchant.orderUuid)).toMatchObject({ status: 'draft' });
    // One delivery per event that sends one, in event order, signed with the channel's secret.
    const toA = await deliveriesOf(a.channelId);
    expect(toA.map((d) => [d.notification_type, d.source_event_id])).toEqual([
      ['order-created', xCreated.id],
      ['order-status-updated', xStatus.id],
    ]);
    const toB = await deliveriesOf(b.channelId);
    expect(toB.map((d) => d.source_event_id)).toEqual([yCreated.id]);
    for (const [d, secret] of [...toA.map((d) => [d, a.secret] as const), ...toB.map((d) => [d, b.secret] as const)]) {
      expect(d.signature).toBe(signBody(d.body, secret));
    }

    // The same run again (a redelivery by the bus) changes nothing.
    expect(await applyOrderEvents(h.instance.deps, run)).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'ignored']);
    expect(await deliveriesOf(a.channelId)).toHaveLength(2);
  }, 30_000);

  it('a registration rotated by another replica since it was cached: its events are signed again with the new secret, the rest of the run goes through', async () => {
    const a = await channelWithUrl('rotated-a');
    const b = await channelWithUrl('rotated-b');
    // Both registrations are now cached by this replica.
    const warm = [orderFacts(a.channelId), orderFacts(b.channelId)];
    await applyOrderEvents(h.instance.deps, warm.map((o) => OrderCreated.create(o.orderUuid, { order: o })));
    const other = await WebhooksHarness.start({ db: h.db, resolver: h.dns });
    let fresh: string;
    try {
      await other.instance.worker.stop();
      fresh = await other.rotate(a.channelId);
    } finally {
      await other.stopReplica();
    }
    const [oa, ob] = [orderFacts(a.channelId), orderFacts(b.channelId)];
    const run = [OrderCreated.create(oa.orderUuid, { order: oa }), OrderCreated.create(ob.orderUuid, { order: ob })];
    expect(await applyOrderEvents(h.instance.deps, run)).toEqual(['applied', 'applied']);
    const [toA, toB] = [(await deliveriesOf(a.channelId)).at(-1)!, (await deliveriesOf(b.channelId)).at(-1)!];
    expect(toA).toMatchObject({ order_uuid: oa.orderUuid, secret_version: 2, signature: signBody(toA.body, fresh!) });
    expect(toB).toMatchObject({ order_uuid: ob.orderUuid, secret_version: 1, signature: signBody(toB.body, b.secret) });
  }, 30_000);
});
