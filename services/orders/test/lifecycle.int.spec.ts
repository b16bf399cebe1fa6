import { uniqueSuffix } from '@pf/platform/testing/infra';
import {
  ADDRESS,
  CANCEL_ORDER,
  CONFIRM_ORDER,
  CORRECT_SHIPPING,
  CREATE_ORDER,
  createTeam,
  ENTER_ORDER,
  HISTORY,
  holdsOf,
  NOT_SENT,
  ORDER,
  ORDERS,
  orderInput,
  PROCESS_NOW,
  PROGRESS,
  QUEUE_ORDER,
  REJECT_ADDRESS,
  SAVE_AS_DRAFT,
  SCHEDULE_ORDER,
  SET_FULFILLABLE,
  setTeamActive,
  startSystem,
  type OrdersSystem,
  type TeamFixture,
} from './harness';
import { orderInState } from './states';

const COUNTDOWN = 600;

describe('order lifecycle: confirm, cancel, merchant actions, supplier progress', () => {
  let s: OrdersSystem;
  let t: TeamFixture;

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: String(COUNTDOWN) } });
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const number = () => `o-${uniqueSuffix()}`;
  const create = async (lines: [string, number][] = [['SKU-A', 2], ['SKU-C', 1]], extra: Record<string, unknown> = {}) =>
    (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), lines, extra) })).createOrder;
  const confirm = (uuid: string, input: Record<string, unknown> | null = null, who = t.shop, url = s.urls.orders) => s.gql<any>(url, who, CONFIRM_ORDER, { uuid, input });
  const read = async (uuid: string) => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order;
  const problemOf = (res: any) => res.errors?.[0]?.extensions?.problem;
  const types = async (seq: number) => (await s.outboxAfter(seq)).map((e) => e.envelope.type);

  describe('confirm (PUT .../confirm)', () => {
    it('confirms a draft: confirmedAt set, queued counting down, one fulfilment per supplier location, stock held', async () => {
      const o = await create([['SKU-A', 2], ['SKU-B', 70], ['SKU-C', 1]]);
      const seq = await s.lastSeq();
      const before = Date.now();
      const res = await confirm(o.uuid, { shippingMethodCode: 'std' });
      expect(res.errors).toBeUndefined();
      const c = res.data.confirmOrder;
      expect(c.status).toBe('queued');
      expect(Date.parse(c.confirmedAt)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(c.fulfillableFrom) - Date.parse(c.confirmedAt)).toBe(COUNTDOWN * 1000);
      expect(c.stockHeld).toBe(true);
      // SKU-B (70) is held in leeds (50) and berlin (20): that line is split between the two fulfilments.
      const byCode = Object.fromEntries(c.fulfilments.map((f: any) => [f.supplierLocation.code, f]));
      expect(Object.keys(byCode).sort()).toEqual(['berlin', 'leeds']);
      for (const f of c.fulfilments) expect(f).toMatchObject({ status: 'draft', shippingMethod: { code: 'std', name: 'Standard' }, trackingDetails: [] });
      expect(byCode.leeds.supplierLocation).toEqual({ code: 'leeds', countryCode: 'GB' });
      expect(byCode.berlin.supplierLocation).toEqual({ code: 'berlin', countryCode: 'DE' });
      const shipped = c.fulfilments.flatMap((f: any) => f.lines).reduce((m: Record<number, number>, l: any) => ({ ...m, [l.lineNumber]: (m[l.lineNumber] ?? 0) + l.quantity }), {});
      expect(shipped).toEqual({ 1: 2, 2: 70, 3: 1 });
      expect((await holdsOf(s, o.uuid)).reduce((n, h) => n + h.quantity, 0)).toBe(73);
      const events = await s.outboxAfter(seq);
      expect(events.map((e) => e.envelope.type)).toEqual(['order.status-changed']);
      expect(events[0]!.envelope.payload).toMatchObject({ originalStatus: 'draft', currentStatus: 'queued', order: { confirmedAt: c.confirmedAt, status: 'queued' } });
      expect((await s.ok<any>(t.backOffice, HISTORY, { uuid: o.uuid })).order.statusHistory.map((h: any) => [h.from, h.to, h.actor])).toEqual([
        [null, 'draft', `channel:${t.teamCode}-shop`],
        ['draft', 'queued', `channel:${t.teamCode}-shop`],
      ]);
    });

    it('confirming a confirmed order answers it unchanged', async () => {
      const o = await create();
      const first = (await confirm(o.uuid)).data.confirmOrder;
      const seq = await s.lastSeq();
      const again = await confirm(o.uuid, { shippingMethodCode: 'express' });
      expect(again.data.confirmOrder).toEqual(first);
      expect(await s.outboxAfter(seq)).toEqual([]);
    });

    it('a draft whose scheduledAt is ahead is scheduled, fulfillableFrom = scheduledAt', async () => {
      const at = new Date(Date.now() + 86_400_000).toISOString();
      const o = await create([['SKU-A', 1]], { scheduledAt: at });
      const c = (await confirm(o.uuid)).data.confirmOrder;
      expect(c).toMatchObject({ status: 'scheduled', scheduledAt: at, fulfillableFrom: at });
      expect(c.confirmedAt).not.toBeNull();
    });

    it('a draft whose scheduledAt has passed is queued, and no longer reads as scheduled (scheduledAt null)', async () => {
      const o = await create([['SKU-A', 1]], { scheduledAt: '2020-01-01T00:00:00Z' });
      expect(o.scheduledAt).toBe('2020-01-01T00:00:00.000Z');
      const c = (await confirm(o.uuid)).data.confirmOrder;
      expect(c).toMatchObject({ status: 'queued', scheduledAt: null });
      expect(c.confirmedAt).not.toBeNull();
    });

    it('validates the shipping method against the team\'s methods and the address (422 naming the field)', async () => {
      const o = await create([['SKU-A', 1]]);
      expect(problemOf(await confirm(o.uuid, { shippingMethodCode: 'nope' }))).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'shippingMethodCode' }] });
      const de = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1]], { shippingDetails: { ...ADDRESS, country: { code: 'DE' } } }) })).createOrder;
      expect(problemOf(await confirm(de.uuid, { shippingMethodCode: 'express' })).violations).toEqual([{ property: 'shippingMethodCode', message: expect.stringContaining('DE') }]);
      const bare = (await s.ok<any>(t.shop, CREATE_ORDER, { input: { orderNumber: number(), orderLines: [{ product: { sku: 'SKU-A' }, quantity: 1 }] } })).createOrder;
      expect(problemOf(await confirm(bare.uuid)).violations.map((v: any) => v.property)).toEqual(['shippingDetails.address1', 'shippingDetails.city', 'shippingDetails.country.code']);
      // Nothing changed: still drafts without holds.
      for (const u of [o.uuid, de.uuid, bare.uuid]) expect((await read(u)).status).toBe('draft');
      expect(await holdsOf(s, o.uuid)).toEqual([]);
    });

    it('without enough stock: stock-unavailable, the order stays a draft', async () => {
      const o = await create([['SKU-D', 6]]);
      expect(problemOf(await confirm(o.uuid))).toMatchObject({ problemType: 'stock-unavailable', extensions: { shortSkus: [{ sku: 'SKU-D', requested: 6 }] } });
      expect((await read(o.uuid)).status).toBe('draft');
    });

    it('an order that is not a draft and not confirmed cannot be confirmed (428)', async () => {
      const held = await orderInState(s, t, 'holding-unconfirmed', number());
      expect(problemOf(await confirm(held.uuid)).problemType).toBe('order-state-forbids');
      const cancelled = await orderInState(s, t, 'cancelled', number());
      expect(problemOf(await confirm(cancelled.uuid)).problemType).toBe('order-state-forbids');
    });

    it('50 concurrent confirms of one order confirm it once and hold its stock once', async () => {
      const o = await create([['SKU-A', 4], ['SKU-B', 3]]);
      const stockSeq = Number((await s.pool.query('SELECT coalesce(max(seq), 0) AS seq FROM stock.outbox_event')).rows[0].seq);
      const seq = await s.lastSeq();
      const results = await Promise.all(Array.from({ length: 50 }, () => confirm(o.uuid)));
      expect(results.filter((r) => r.errors)).toEqual([]);
      expect(new Set(results.map((r) => r.data.confirmOrder.confirmedAt)).size).toBe(1);
      expect(await types(seq)).toEqual(['order.status-changed']);
      // One hold placed per line, and stock announced one change per product: held once.
      expect((await holdsOf(s, o.uuid)).map((h) => [h.line_number, h.quantity])).toEqual([
        [1, 4],
        [2, 3],
      ]);
      const { rows } = await s.pool.query(
        `SELECT envelope->'payload'->>'productUuid' AS product, count(*)::int AS n FROM stock.outbox_event WHERE seq > $1 GROUP BY 1 ORDER BY 1`,
        [stockSeq],
      );
      expect(rows.map((r) => r.n)).toEqual([1, 1]);
    }, 60_000);

    it('concurrent confirms more than the pool has connections: none waits forever (one connection per change)', async () => {
      // A replica with two connections: every waiting confirm holds one, so a change that needed a
      // second connection while holding the order's row lock would never finish.
      const small = await s.startOrders({ ORDERS_DB_POOL_MAX: '2' }, { start: false });
      try {
        const o = await create([['SKU-A', 1]]);
        const results = await Promise.all(Array.from({ length: 12 }, () => confirm(o.uuid, null, t.shop, small.url)));
        expect(results.filter((r) => r.errors)).toEqual([]);
        expect(new Set(results.map((r) => r.data.confirmOrder.confirmedAt)).size).toBe(1);
      } finally {
        await small.stop();
      }
    }, 60_000);

    it('an inactive team: 403 before anything changes, except for an order already confirmed (unchanged)', async () => {
      const u = await createTeam(s, `i${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 10 } } });
      const shop = u.shop;
      const draft = (await s.ok<any>(shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1]]) })).createOrder;
      const confirmed = (await s.ok<any>(shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1]]) })).createOrder;
      const done = (await s.ok<any>(shop, CONFIRM_ORDER, { uuid: confirmed.uuid })).confirmOrder;
      await setTeamActive(s, u.teamCode, false);
      expect(problemOf(await confirm(draft.uuid, null, shop)).problemType).toBe('team-inactive');
      expect((await s.ok<any>(u.backOffice, ORDER, { uuid: draft.uuid })).order).toMatchObject({ status: 'draft', confirmedAt: null, fulfilments: [] });
      expect(await holdsOf(s, draft.uuid)).toEqual([]);
      expect((await confirm(confirmed.uuid, null, shop)).data.confirmOrder).toEqual(done);
      // Reads and cancelling still work.
      expect((await s.ok<any>(shop, CANCEL_ORDER, { uuid: draft.uuid })).cancelOrder.status).toBe('cancelled');
    }, 60_000);
  });

  describe('cancel (PUT .../cancel, DELETE)', () => {
    it('cancels a confirmed order: holds released, open fulfilments cancelled, confirmedAt kept', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      const seq = await s.lastSeq();
      const c = (await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid })).cancelOrder;
      expect(c).toMatchObject({ status: 'cancelled', confirmedAt: o.confirmedAt, stockHeld: false });
      expect(c.fulfilments.map((f: any) => [f.uuid, f.status])).toEqual(o.fulfilments.map((f: any) => [f.uuid, 'cancelled']));
      expect(await holdsOf(s, o.uuid)).toEqual([]);
      expect((await holdsOf(s, o.uuid, 'released')).length).toBe(2);
      const events = await s.outboxAfter(seq);
      expect(events.map((e) => e.envelope.type).sort()).toEqual(['fulfilment.status-changed', 'fulfilment.status-changed', 'order.status-changed']);
      const fulfilmentEvent = events.find((e) => e.envelope.type === 'fulfilment.status-changed')!.envelope.payload;
      expect(fulfilmentEvent).toMatchObject({ originalStatus: 'draft', currentStatus: 'cancelled', order: { status: 'cancelled', confirmedAt: o.confirmedAt } });
      expect(Array.isArray(fulfilmentEvent.skus)).toBe(true);
    });

    it('428 once something was dispatched, and for a cancelled order', async () => {
      const partial = await orderInState(s, t, 'partial', number());
      expect(problemOf(await s.gql(s.urls.orders, t.shop, CANCEL_ORDER, { uuid: partial.uuid })).problemType).toBe('order-state-forbids');
      const processing = await orderInState(s, t, 'processing', number());
      await s.ok(t.backOffice, PROGRESS, { fulfilmentUuid: processing.fulfilments[0]!.uuid, input: { status: 'dispatched' } });
      expect(problemOf(await s.gql(s.urls.orders, t.shop, CANCEL_ORDER, { uuid: processing.uuid })).problemType).toBe('order-state-forbids');
      const cancelled = await orderInState(s, t, 'cancelled', number());
      expect(problemOf(await s.gql(s.urls.orders, t.shop, CANCEL_ORDER, { uuid: cancelled.uuid })).problemType).toBe('order-state-forbids');
    });

    it('a processing order with nothing dispatched can be cancelled', async () => {
      const processing = await orderInState(s, t, 'processing', number());
      const c = (await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: processing.uuid })).cancelOrder;
      expect(c.status).toBe('cancelled');
      expect(c.fulfilments.every((f: any) => f.status === 'cancelled')).toBe(true);
    });
  });

  describe('merchant actions and confirmedAt (section 3)', () => {
    it('take out of the queue / save as draft: draft, confirmedAt cleared, fulfilments dropped, holds released; confirming again sets a new confirmedAt', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      const d = (await s.ok<any>(t.backOffice, SAVE_AS_DRAFT, { uuid: o.uuid, reason: 'customer called' })).saveOrderAsDraft;
      expect(d).toMatchObject({ status: 'draft', confirmedAt: null, fulfilments: [], stockHeld: false });
      expect(await holdsOf(s, o.uuid)).toEqual([]);
      // The draft may be replaced with POST /orders and confirmed again.
      const replaced = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(o.orderNumber, [['SKU-A', 5]]) })).createOrder;
      expect(replaced.uuid).toBe(o.uuid);
      const again = (await confirm(o.uuid)).data.confirmOrder;
      expect(again.status).toBe('queued');
      expect(Date.parse(again.confirmedAt)).toBeGreaterThan(Date.parse(o.confirmedAt));
      expect(again.fulfilments.map((f: any) => f.uuid)).not.toContain(o.fulfilments[0].uuid);
      const history = (await s.ok<any>(t.backOffice, HISTORY, { uuid: o.uuid })).order.statusHistory;
      expect(history.map((h: any) => [h.from, h.to])).toEqual([
        [null, 'draft'],
        ['draft', 'queued'],
        ['queued', 'draft'],
        ['draft', 'queued'],
      ]);
      expect(history[2]).toMatchObject({ actor: `backoffice:user@${t.teamCode}`, reason: 'customer called' });
    });

    it('a rejected shipping address: holding with confirmedAt null; sending the order again makes it a draft to confirm', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      const h = (await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: o.uuid, reason: 'unknown street' })).rejectShippingAddress;
      expect(h).toMatchObject({ status: 'holding', confirmedAt: null, fulfilments: [] });
      expect(await holdsOf(s, o.uuid)).toEqual([]);
      const fixed = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(o.orderNumber, [['SKU-A', 2], ['SKU-C', 1]], { shippingDetails: { ...ADDRESS, address1: '2 Analytical Row' } }) }))
        .createOrder;
      expect(fixed).toMatchObject({ uuid: o.uuid, status: 'draft', confirmedAt: null });
      expect((await confirm(o.uuid)).data.confirmOrder.status).toBe('queued');
    });

    it('the back-office corrects the address of an order nothing sends again: a draft to queue, lines and history kept; refused once queued', async () => {
      const entered = (await s.ok<any>(t.backOffice, ENTER_ORDER, { input: orderInput(number(), [['SKU-A', 2]]) })).enterOrder;
      const queued = (await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: entered.uuid })).queueOrder;
      const refused = await s.gql<any>(s.urls.orders, t.backOffice, CORRECT_SHIPPING, { uuid: queued.uuid, shippingDetails: { ...ADDRESS, address1: '2 Analytical Row' } });
      expect(problemOf(refused).problemType).toBe('order-state-forbids');
      await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: queued.uuid, reason: 'unknown street' });
      const invalid = await s.gql<any>(s.urls.orders, t.backOffice, CORRECT_SHIPPING, { uuid: queued.uuid, shippingDetails: { ...ADDRESS, postalCode: 'x'.repeat(26) } });
      expect(problemOf(invalid)).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'shippingDetails.postalCode' }] });
      const fixed = (await s.ok<any>(t.backOffice, CORRECT_SHIPPING, { uuid: queued.uuid, shippingDetails: { ...ADDRESS, address1: '2 Analytical Row' } })).correctShippingDetails;
      expect(fixed).toMatchObject({ status: 'draft', confirmedAt: null, origin: 'merchant-app', shippingDetails: { address1: '2 Analytical Row' }, orderLines: entered.orderLines });
      expect((await s.ok<any>(t.backOffice, HISTORY, { uuid: queued.uuid })).order.statusHistory.at(-1)).toMatchObject({ from: 'holding', to: 'draft' });
      expect((await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: queued.uuid })).queueOrder.status).toBe('queued');
      // Integrations cannot use it.
      expect(problemOf(await s.gql(s.urls.orders, t.shop, CORRECT_SHIPPING, { uuid: queued.uuid, shippingDetails: ADDRESS })).problemType).toBe('forbidden');
    });

    it('a confirmed order that could not be sent: holding with confirmedAt kept', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      const h = (await s.ok<any>(t.backOffice, NOT_SENT, { uuid: o.uuid })).markOrderNotSent;
      expect(h).toMatchObject({ status: 'holding', confirmedAt: o.confirmedAt });
      // Cancelling keeps it too.
      expect((await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid })).cancelOrder).toMatchObject({ status: 'cancelled', confirmedAt: o.confirmedAt });
    });

    it('an address rejected while the order was holding (could not be sent): confirmedAt cleared, and the history says so though the status stayed', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      await s.ok<any>(t.backOffice, NOT_SENT, { uuid: o.uuid });
      const h = (await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: o.uuid, reason: 'no such street' })).rejectShippingAddress;
      expect(h).toMatchObject({ status: 'holding', confirmedAt: null });
      const history = (await s.ok<any>(t.backOffice, HISTORY, { uuid: o.uuid })).order.statusHistory;
      expect(history.at(-1)).toMatchObject({ from: 'holding', to: 'holding', reason: 'no such street' });
      const { rows } = await s.pool.query('SELECT trigger FROM orders.order_status_change WHERE order_uuid = $1 ORDER BY id DESC LIMIT 1', [o.uuid]);
      expect(rows[0].trigger).toBe('reject-shipping-address');
    });

    it('queueing, scheduling or processing in the merchant application confirms the order (confirmedAt set)', async () => {
      const q = (await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: (await create()).uuid, code: 'express' })).queueOrder;
      expect(q).toMatchObject({ status: 'queued' });
      expect(q.confirmedAt).not.toBeNull();
      expect(q.fulfilments.every((f: any) => f.shippingMethod.code === 'express')).toBe(true);
      const at = new Date(Date.now() + 7_200_000).toISOString();
      const sc = (await s.ok<any>(t.backOffice, SCHEDULE_ORDER, { uuid: (await create()).uuid, at })).scheduleOrder;
      expect(sc).toMatchObject({ status: 'scheduled', scheduledAt: at, fulfillableFrom: at });
      expect(sc.confirmedAt).not.toBeNull();
      // Rescheduling a queued order keeps its confirmedAt.
      const re = (await s.ok<any>(t.backOffice, SCHEDULE_ORDER, { uuid: q.uuid, at })).scheduleOrder;
      expect(re).toMatchObject({ status: 'scheduled', confirmedAt: q.confirmedAt });
      // Queueing it again abandons the schedule: no longer scheduled, scheduledAt null.
      const requeued = (await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: q.uuid })).queueOrder;
      expect(requeued).toMatchObject({ status: 'queued', scheduledAt: null, confirmedAt: q.confirmedAt });
      // Queueing a queued order restarts its countdown: the same fulfilments and holds, a later fulfillableFrom.
      const heldBefore = await holdsOf(s, q.uuid);
      await new Promise((r) => setTimeout(r, 20));
      const restarted = (await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: q.uuid })).queueOrder;
      expect(restarted).toMatchObject({ status: 'queued', confirmedAt: q.confirmedAt, fulfilments: requeued.fulfilments });
      expect(Date.parse(restarted.fulfillableFrom)).toBeGreaterThan(Date.parse(requeued.fulfillableFrom));
      // The timer that sends it moved with it.
      const { rows: timer } = await s.pool.query('SELECT kind, due_at FROM orders.order_timer WHERE order_uuid = $1', [q.uuid]);
      expect(timer.map((r) => [r.kind, (r.due_at as Date).toISOString()])).toEqual([['countdown', restarted.fulfillableFrom]]);
      expect(await holdsOf(s, q.uuid)).toEqual(heldBefore);
      const p = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: (await create()).uuid })).processOrderNow;
      expect(p.status).toBe('processing');
      expect(p.confirmedAt).not.toBeNull();
      expect(p.fulfilments.every((f: any) => f.status === 'processing')).toBe(true);
      // At processing the holds are consumed: the stock left the warehouses.
      expect(await holdsOf(s, p.uuid)).toEqual([]);
      expect((await holdsOf(s, p.uuid, 'consumed')).length).toBe(2);
      const bad = await s.gql<any>(s.urls.orders, t.backOffice, SCHEDULE_ORDER, { uuid: (await create()).uuid, at: new Date(Date.now() - 1000).toISOString() });
      expect(problemOf(bad)).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'scheduledAt' }] });
    });

    it('a shipping method named when the order has its fulfilments is checked and taken, never ignored', async () => {
      const q = (await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: (await create()).uuid, code: 'express' })).queueOrder;
      const at = new Date(Date.now() + 7_200_000).toISOString();
      const unknown = await s.gql<any>(s.urls.orders, t.backOffice, SCHEDULE_ORDER, { uuid: q.uuid, at, code: 'no-such-method' });
      expect(problemOf(unknown)).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'shippingMethodCode' }] });
      expect(await read(q.uuid)).toEqual(q);
      const scheduled = (await s.ok<any>(t.backOffice, SCHEDULE_ORDER, { uuid: q.uuid, at, code: 'std' })).scheduleOrder;
      expect(scheduled.status).toBe('scheduled');
      expect(scheduled.fulfilments.map((f: any) => [f.uuid, f.shippingMethod])).toEqual(q.fulfilments.map((f: any) => [f.uuid, { code: 'std', name: 'Standard' }]));
      const processed = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: q.uuid })).processOrderNow;
      expect(processed.fulfilments.every((f: any) => f.status === 'processing' && f.shippingMethod.code === 'std')).toBe(true);
      expect(await read(q.uuid)).toEqual(processed);
    });

    it('integrations cannot use merchant actions', async () => {
      const o = await create();
      expect(problemOf(await s.gql(s.urls.orders, t.shop, QUEUE_ORDER, { uuid: o.uuid })).problemType).toBe('forbidden');
    });

    it('fulfillable status changes announce one event each', async () => {
      const o = (await confirm((await create()).uuid)).data.confirmOrder;
      const seq = await s.lastSeq();
      const n = (await s.ok<any>(t.backOffice, SET_FULFILLABLE, { uuid: o.uuid, value: 'not-fulfillable' })).setFulfillableStatus;
      expect(n.fulfillableStatus).toBe('not-fulfillable');
      await s.ok(t.backOffice, SET_FULFILLABLE, { uuid: o.uuid, value: 'not-fulfillable' });
      const events = await s.outboxAfter(seq);
      expect(events.map((e) => e.envelope.payload)).toEqual([
        expect.objectContaining({ originalFulfillableStatus: 'fulfillable', currentFulfillableStatus: 'not-fulfillable', order: expect.objectContaining({ fulfillableStatus: 'not-fulfillable' }) }),
      ]);
      expect(problemOf(await s.gql(s.urls.orders, t.backOffice, SET_FULFILLABLE, { uuid: o.uuid, value: 'maybe' })).violations[0].property).toBe('fulfillableStatus');
    });
  });

  describe('supplier progress and final statuses', () => {
    const progress = (fulfilmentUuid: string, input: Record<string, unknown>) => s.gql<any>(s.urls.orders, t.backOffice, PROGRESS, { fulfilmentUuid, input });

    it('dispatched with tracking: fulfilment event with the SKUs array, tracking event with the details array; complete when all are dispatched', async () => {
      const p = await orderInState(s, t, 'processing', number());
      const [f1, f2] = p.fulfilments;
      const seq = await s.lastSeq();
      const tracking = [{ carrier: 'DHL', trackingNumber: 'JD1', trackingUrl: 'https://dhl.example/JD1', methodCode: 'std', methodName: 'Standard' }];
      const r1 = (await progress(f1!.uuid, { status: 'dispatched', trackingDetails: tracking })).data.recordFulfilmentProgress;
      expect(r1.status).toBe('processing');
      const f = r1.fulfilments.find((x: any) => x.uuid === f1!.uuid);
      expect(f.trackingDetails).toEqual([{ carrier: 'DHL', trackingNumber: 'JD1', trackingUrl: 'https://dhl.example/JD1', courier: 'DHL', number: 'JD1', url: 'https://dhl.example/JD1', methodCode: 'std', methodName: 'Standard' }]);
      expect(r1.trackingDetails).toEqual([{ carrier: 'DHL', trackingNumber: 'JD1', trackingUrl: 'https://dhl.example/JD1', courier: 'DHL', number: 'JD1', url: 'https://dhl.example/JD1', methodName: 'Standard' }]);
      const r2 = (await progress(f2!.uuid, { status: 'dispatched' })).data.recordFulfilmentProgress;
      expect(r2.status).toBe('complete');
      const events = await s.outboxAfter(seq);
      expect(events.map((e) => e.envelope.type)).toEqual(['fulfilment.status-changed', 'fulfilment.tracking-created', 'fulfilment.status-changed', 'order.status-changed']);
      expect(events[0]!.envelope.payload).toMatchObject({ fulfilmentUuid: f1!.uuid, originalStatus: 'processing', currentStatus: 'dispatched', skus: (f1 as any).lines.map((l: any) => l.sku) });
      expect(events[1]!.envelope.payload.trackingDetails).toEqual([{ carrier: 'DHL', trackingNumber: 'JD1', trackingUrl: 'https://dhl.example/JD1', methodCode: 'std', methodName: 'Standard' }]);
      expect(events[3]!.envelope.payload).toMatchObject({ originalStatus: 'processing', currentStatus: 'complete' });
    });

    it('progress on a fulfilment an address rejection dropped while the progress waited for the order is not-found, not an error', async () => {
      const p = await orderInState(s, t, 'processing', number());
      // Sequenced by holding the order's row: the rejection queues for it first, the progress second.
      const holder = await s.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM orders.orders WHERE uuid = $1 FOR UPDATE', [p.uuid]);
        const rejected = s.gql<any>(s.urls.orders, t.backOffice, REJECT_ADDRESS, { uuid: p.uuid });
        await new Promise((r) => setTimeout(r, 300));
        const progressed = progress(p.fulfilments[0]!.uuid, { status: 'dispatched' });
        await new Promise((r) => setTimeout(r, 300));
        await holder.query('COMMIT');
        expect((await rejected).data.rejectShippingAddress.status).toBe('holding');
        expect(problemOf(await progressed).problemType).toBe('not-found');
      } finally {
        holder.release();
      }
    });

    it('failed, partial, back-order and invalid follow the fulfilments; a parcel that comes back counts as not shipped', async () => {
      expect((await orderInState(s, t, 'failed', number())).status).toBe('failed');
      expect((await orderInState(s, t, 'partial', number())).status).toBe('partial');
      expect((await orderInState(s, t, 'back-order', number())).status).toBe('back-order');
      expect((await orderInState(s, t, 'invalid', number())).status).toBe('invalid');
      // Section 3: partial = at least one dispatched and one not; failed = every one failed, cancelled or returned.
      const complete = await orderInState(s, t, 'complete', number());
      const [f1, f2] = complete.fulfilments;
      expect((await s.ok<any>(t.backOffice, PROGRESS, { fulfilmentUuid: f1!.uuid, input: { status: 'returned' } })).recordFulfilmentProgress.status).toBe('partial');
      expect((await s.ok<any>(t.backOffice, PROGRESS, { fulfilmentUuid: f2!.uuid, input: { status: 'returned' } })).recordFulfilmentProgress.status).toBe('failed');
    });

    it('refuses moves the fulfilment table does not have (428) and statuses it does not know (422)', async () => {
      const q = (await confirm((await create()).uuid)).data.confirmOrder;
      expect(problemOf(await progress(q.fulfilments[0].uuid, { status: 'dispatched' })).problemType).toBe('order-state-forbids');
      const c = await orderInState(s, t, 'complete', number());
      expect(problemOf(await progress(c.fulfilments[0]!.uuid, { status: 'failed' })).problemType).toBe('order-state-forbids');
      expect(problemOf(await progress(c.fulfilments[0]!.uuid, { status: 'lost' })).problemType).toBe('validation-failed');
    });
  });

  describe('reads', () => {
    it('orders: filters by status, orderNumber, updatedSince, createdSince; pages with totals', async () => {
      const u = await createTeam(s, `l${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 100 } } });
      const since = new Date().toISOString();
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(`n-${i}`, [['SKU-A', 1]]) })).createOrder);
      await s.ok(u.shop, CONFIRM_ORDER, { uuid: made[1].uuid });
      const page = async (who: any, vars: Record<string, unknown>) => (await s.ok<any>(who, `query ($filter: OrderFilter, $page: Int, $perPage: Int, $sort: OrderSort) {
        orders(filter: $filter, page: $page, perPage: $perPage, sort: $sort) { items { uuid orderNumber status } page perPage total lastPage from to } }`, vars)).orders;
      expect(await page(u.shop, { perPage: 2, page: 2 })).toMatchObject({ page: 2, perPage: 2, total: 5, lastPage: 3, from: 3, to: 4, items: [{ orderNumber: 'n-2' }, { orderNumber: 'n-1' }] });
      expect((await page(u.shop, { filter: { status: ['queued'] } })).items.map((o: any) => o.orderNumber)).toEqual(['n-1']);
      expect((await page(u.shop, { filter: { orderNumber: 'n-3' } })).items.map((o: any) => o.uuid)).toEqual([made[3].uuid]);
      expect((await page(u.shop, { filter: { createdSince: since, status: ['draft'] } })).total).toBe(4);
      const updated = await page(u.shop, { filter: { updatedSince: made[4].updatedAt }, sort: 'UPDATED_ASC' });
      expect(updated.items.map((o: any) => o.orderNumber)).toEqual(['n-4', 'n-1']);
      expect(await page(u.shop, { page: 9 })).toMatchObject({ items: [], total: 5, from: null, to: null });
      const bad = await s.gql<any>(s.urls.orders, u.shop, `{ orders(filter: { status: ["lost"], updatedSince: "yesterday" }, perPage: 500) { total } }`);
      expect(problemOf(bad).violations.map((v: any) => v.property).sort()).toEqual(['filter.status', 'filter.updatedSince', 'perPage']);
      // A list of statuses longer than any set of them is refused before its items are read; repeats within it are one.
      const flood = await s.gql<any>(s.urls.orders, u.shop, 'query ($s: [String!]) { orders(filter: { status: $s }) { total } }', { s: Array(100_000).fill('draft') });
      expect(problemOf(flood).violations).toEqual([{ property: 'filter.status', message: expect.stringMatching(/^At most 50/) }]);
      expect((await page(u.shop, { filter: { status: ['draft', 'draft', 'queued'] } })).total).toBe(5);
    }, 60_000);

    it('a page is one snapshot: while its orders change, every order on it meets the filter and the count agrees with it', async () => {
      const u = await createTeam(s, `p${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 100_000 } } });
      const made: { uuid: string }[] = [];
      for (let i = 0; i < 12; i++) made.push((await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(`p-${i}`, [['SKU-A', 1]]) })).createOrder);
      let toggling = true;
      // The merchant queues every order and saves it as a draft again, round after round.
      const toggler = (async () => {
        for (let round = 0; toggling; round++) {
          await Promise.all(made.map((o) => s.ok(u.backOffice, round % 2 === 0 ? QUEUE_ORDER : SAVE_AS_DRAFT, { uuid: o.uuid })));
        }
      })();
      try {
        for (let i = 0; i < 80; i++) {
          const p = (await s.ok<any>(u.shop, ORDERS, { filter: { status: ['queued'] }, perPage: 100 })).orders;
          expect(p.items.filter((o: any) => o.status !== 'queued')).toEqual([]);
          expect(p.total).toBe(p.items.length);
          expect(p.to).toBe(p.items.length > 0 ? p.items.length : null);
        }
      } finally {
        toggling = false;
        await toggler;
      }
    }, 120_000);
  });
});
