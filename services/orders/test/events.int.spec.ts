import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import { eventually } from '@pf/platform/testing/infra';
import { AMEND_ORDER, CONFIRM_ORDER, CREATE_ORDER, createTeam, orderInput, PROCESS_NOW, PROGRESS, startSystem, type OrdersSystem, type TeamFixture } from './harness';

/**
 * The production wiring of events: every service on a real Kafka broker. The orders read models
 * fill from accounts' and catalog's topics; the orders outbox relay publishes one event per change,
 * keyed by the order uuid, in order.
 */
describe('orders events over Kafka', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  const received: EventEnvelope<any>[] = [];

  beforeAll(async () => {
    s = await startSystem({ kafka: true });
    // Read models fed over Kafka: createTeam waits for them.
    t = await createTeam(s, undefined, { stock: { 'SKU-A': { leeds: 50 }, 'SKU-C': { berlin: 50 } } });
    await s.bus.subscribe({ groupId: 'orders-events-test', topics: [TOPICS.orders], handler: async (event) => void received.push(event as EventEnvelope<any>) });
  }, 120_000);
  afterAll(async () => s?.close(), 60_000);

  it('one event per change, keyed by order uuid, in order; the amendment sends only order.revised', async () => {
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput('k-1', [['SKU-A', 1], ['SKU-C', 1]]) })).createOrder;
    await s.ok(t.shop, CONFIRM_ORDER, { uuid: o.uuid });
    await s.ok(t.shop, AMEND_ORDER, { uuid: o.uuid, input: { orderLines: [{ lineNumber: 1, product: { sku: 'SKU-A' }, quantity: 3 }, { lineNumber: 2, product: { sku: 'SKU-C' }, quantity: 1 }] } });
    const p = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: o.uuid })).processOrderNow;
    const leeds = p.fulfilments.find((f: any) => f.supplierLocation.code === 'leeds');
    await s.ok(t.backOffice, PROGRESS, {
      fulfilmentUuid: leeds.uuid,
      input: { status: 'dispatched', trackingDetails: [{ carrier: 'DPD', trackingNumber: 'D1', trackingUrl: 'https://dpd.example/D1', methodCode: 'std', methodName: 'Standard' }] },
    });
    const mine = () => received.filter((e) => e.payload.order.orderUuid === o.uuid);
    await eventually(() => (mine().length >= 8 ? true : undefined), 30_000);
    const events = mine();
    expect(events.every((e) => e.aggregateId === o.uuid && e.aggregateType === 'order')).toBe(true);
    expect(events.map((e) => e.type)).toEqual([
      'order.created',
      'order.status-changed',
      'order.revised',
      'fulfilment.status-changed',
      'fulfilment.status-changed',
      'order.status-changed',
      'fulfilment.status-changed',
      'fulfilment.tracking-created',
    ]);
    expect(events[0]!.payload.order).toMatchObject({ origin: 'api', channelId: `${t.teamCode}-shop`, channelCode: 'shop', teamCode: t.teamCode, orderNumber: 'k-1', confirmedAt: null });
    expect(events[1]!.payload).toMatchObject({ originalStatus: 'draft', currentStatus: 'queued' });
    expect(events[1]!.payload.order.confirmedAt).not.toBeNull();
    expect(events[5]!.payload).toMatchObject({ originalStatus: 'queued', currentStatus: 'processing' });
    expect(events[6]!.payload).toMatchObject({ fulfilmentUuid: leeds.uuid, originalStatus: 'processing', currentStatus: 'dispatched', skus: ['SKU-A'] });
    expect(events[7]!.payload.trackingDetails).toEqual([{ carrier: 'DPD', trackingNumber: 'D1', trackingUrl: 'https://dpd.example/D1', methodCode: 'std', methodName: 'Standard' }]);

    // More tracking, naming no method: the fulfilment's own shipping method fills it in, and the
    // event lists every tracking detail the fulfilment has now.
    await s.ok(t.backOffice, 'mutation ($f: ID!, $d: [TrackingDetailInput!]!) { addFulfilmentTracking(fulfilmentUuid: $f, trackingDetails: $d) { uuid } }', {
      f: leeds.uuid,
      d: [{ carrier: 'DPD', trackingNumber: 'D2' }],
    });
    await eventually(() => (mine().length >= 9 ? true : undefined), 30_000);
    const more = mine()[8]!;
    expect(more.type).toBe('fulfilment.tracking-created');
    expect(more.payload.trackingDetails).toEqual([
      { carrier: 'DPD', trackingNumber: 'D1', trackingUrl: 'https://dpd.example/D1', methodCode: 'std', methodName: 'Standard' },
      { carrier: 'DPD', trackingNumber: 'D2', trackingUrl: null, methodCode: leeds.shippingMethod.code, methodName: leeds.shippingMethod.name },
    ]);
    expect(leeds.shippingMethod.code).toEqual(expect.any(String));

    // Tracking naming a method by name only gets the team's code for it; by code only, its name.
    await s.ok(t.backOffice, 'mutation ($f: ID!, $d: [TrackingDetailInput!]!) { addFulfilmentTracking(fulfilmentUuid: $f, trackingDetails: $d) { uuid } }', {
      f: leeds.uuid,
      d: [
        { carrier: 'RM', trackingNumber: 'D3', methodName: 'standard' },
        { carrier: 'DHL', trackingNumber: 'D4', methodCode: 'express' },
      ],
    });
    await eventually(() => (mine().length >= 10 ? true : undefined), 30_000);
    expect(mine()[9]!.payload.trackingDetails.slice(2)).toEqual([
      { carrier: 'RM', trackingNumber: 'D3', trackingUrl: null, methodCode: 'std', methodName: 'standard' },
      { carrier: 'DHL', trackingNumber: 'D4', trackingUrl: null, methodCode: 'express', methodName: 'Express' },
    ]);
  }, 60_000);
});
