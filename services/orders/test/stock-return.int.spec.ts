import { uniqueSuffix } from '@pf/platform/testing/infra';
import { CANCEL_ORDER, CONFIRM_ORDER, CREATE_ORDER, createTeam, holdsOf, orderInput, PROCESS_NOW, REJECT_ADDRESS, startSystem, type OrdersSystem, type TeamFixture } from './harness';
import { orderInState, type TestOrder } from './states';
import { figures as feedOf, less, progressAt, refusingOrderWrites, stockOutboxSeq } from './stock-support';

/**
 * Stock consumed for fulfilments that were sent but never left the warehouse comes back on hand
 * (docs/orders.md, "When consumed stock comes back"), through the real stock service.
 * orderInState's orders: SKU-A ×1 from leeds, SKU-C ×1 from berlin (two fulfilments).
 */
describe('consumed stock of fulfilments that never left comes back on hand', () => {
  let s: OrdersSystem;
  let t: TeamFixture;

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: '600' } });
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const number = () => `r-${uniqueSuffix()}`;
  const problemOf = (res: any) => res.errors?.[0]?.extensions?.problem;

  /** On hand per `SKU@warehouse` of the team, as stock has it. */
  async function onHand(): Promise<Record<string, number>> {
    const skuOf = new Map(Object.entries(t.products).map(([sku, uuid]) => [uuid, sku]));
    const { rows } = await s.pool.query<{ product_uuid: string; code: string; on_hand: number }>(
      `SELECT s.product_uuid::text AS product_uuid, w.code, s.on_hand FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id WHERE s.team_code = $1`,
      [t.teamCode],
    );
    return Object.fromEntries(rows.map((r) => [`${skuOf.get(r.product_uuid)}@${r.code}`, r.on_hand]));
  }

  const figures = () => feedOf(s, t);

  const cancel = async (uuid: string) => (await s.ok<any>(t.shop, CANCEL_ORDER, { uuid })).cancelOrder as TestOrder;
  const progress = (order: TestOrder, code: string, status: string) => progressAt(s, t, order, code, status);
  const adjustmentKinds = async (uuid: string) =>
    (
      await s.pool.query<{ kind: string; delta: number }>(`SELECT kind, delta FROM stock.stock_adjustment WHERE reason LIKE $1 ORDER BY id`, [`Order ${uuid} %`])
    ).rows.map((r) => [r.kind, r.delta]);

  it('cancelling a processing order: on hand and the stock-levels figure are back to what they were before the order', async () => {
    const stock = await onHand();
    const feed = await figures();
    const p = await orderInState(s, t, 'processing', number());
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 }));
    expect(await figures()).toEqual(less(feed, { 'SKU-A': 1, 'SKU-C': 1 }));
    const stockSeq = await stockOutboxSeq(s);

    const c = await cancel(p.uuid);
    expect(c.status).toBe('cancelled');
    expect(c.fulfilments.map((f) => f.status)).toEqual(['cancelled', 'cancelled']);
    expect(await onHand()).toEqual(stock);
    expect(await figures()).toEqual(feed);
    expect((await holdsOf(s, p.uuid, 'returned')).length).toBe(2);
    expect(await holdsOf(s, p.uuid, 'consumed')).toEqual([]);
    expect((await adjustmentKinds(p.uuid)).sort()).toEqual([
      ['consume', -1],
      ['consume', -1],
      ['return', 1],
      ['return', 1],
    ]);
    // The webhooks service builds stock-level-updated from these: one per product, back up by one.
    const { rows } = await s.pool.query(`SELECT envelope FROM stock.outbox_event WHERE seq > $1 ORDER BY seq`, [stockSeq]);
    expect(rows.map((r) => [r.envelope.type, r.envelope.payload.sku, r.envelope.payload.stock - r.envelope.payload.previousStock]).sort()).toEqual([
      ['stock-level.changed', 'SKU-A', 1],
      ['stock-level.changed', 'SKU-C', 1],
    ]);
  });

  it('back-order and invalid fulfilments were sent too: cancelling gives their stock back', async () => {
    for (const state of ['back-order', 'invalid'] as const) {
      const stock = await onHand();
      const o = await orderInState(s, t, state, number());
      expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 }));
      expect((await cancel(o.uuid)).status).toBe('cancelled');
      expect(await onHand()).toEqual(stock);
    }
  });

  it('a cancelled order that was never sent gives back nothing it did not take (its holds are released)', async () => {
    const stock = await onHand();
    const q = await orderInState(s, t, 'queued', number());
    expect(await onHand()).toEqual(stock);
    await cancel(q.uuid);
    expect(await onHand()).toEqual(stock);
    expect(await adjustmentKinds(q.uuid)).toEqual([]);
  });

  it('a rejected shipping address from processing: holding, stock back; sent again after the fix, taken once and given back once', async () => {
    const stock = await onHand();
    const feed = await figures();
    const p = await orderInState(s, t, 'processing', number());
    const h = (await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: p.uuid, reason: 'no such street' })).rejectShippingAddress;
    expect(h).toMatchObject({ status: 'holding', confirmedAt: null, fulfilments: [] });
    expect(await onHand()).toEqual(stock);
    expect(await figures()).toEqual(feed);

    // Fixed and sent again: the new holds are consumed, the returned ones stay returned.
    const fixed = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(p.orderNumber, [['SKU-A', 1], ['SKU-C', 1]]) })).createOrder;
    expect(fixed).toMatchObject({ uuid: p.uuid, status: 'draft' });
    await s.ok(t.shop, CONFIRM_ORDER, { uuid: p.uuid });
    const again = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: p.uuid })).processOrderNow;
    expect(again.status).toBe('processing');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 }));
    expect((await holdsOf(s, p.uuid, 'returned')).length).toBe(2);
    expect((await holdsOf(s, p.uuid, 'consumed')).length).toBe(2);
    await cancel(p.uuid);
    expect(await onHand()).toEqual(stock);
    expect((await holdsOf(s, p.uuid, 'returned')).length).toBe(4);
  });

  it('supplier progress: a fulfilment cancelled before dispatch gives its stock back; a dispatched one does not; a failed one does not', async () => {
    const stock = await onHand();
    // leeds dispatched, berlin cancelled by the supplier: partial, only berlin's SKU-C comes back.
    const p = await orderInState(s, t, 'processing', number());
    await progress(p, 'leeds', 'dispatched');
    const partial = await progress(p, 'berlin', 'cancelled');
    expect(partial.status).toBe('partial');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1 }));
    expect(await holdsOf(s, p.uuid, 'consumed')).toEqual([{ line_number: 1, quantity: 1, warehouse_id: t.warehouses.leeds }]);

    // leeds failed (what is left on the shelf is unknown: a count puts it right), berlin cancelled.
    const q = await orderInState(s, t, 'processing', number());
    await progress(q, 'leeds', 'failed');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 2, 'SKU-C@berlin': 1 }));
    expect((await progress(q, 'berlin', 'cancelled')).status).toBe('failed');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 2 }));
  });

  it('a supplier cancels one fulfilment, then the order is cancelled: each fulfilment\'s stock comes back once', async () => {
    const stock = await onHand();
    const p = await orderInState(s, t, 'processing', number());
    await progress(p, 'berlin', 'cancelled');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1 }));
    const c = await cancel(p.uuid);
    expect(c.fulfilments.map((f: any) => [f.supplierLocation.code, f.status])).toEqual([
      ['berlin', 'cancelled'],
      ['leeds', 'cancelled'],
    ]);
    expect(await onHand()).toEqual(stock);
    expect((await adjustmentKinds(p.uuid)).filter(([k]) => k === 'return')).toEqual([
      ['return', 1],
      ['return', 1],
    ]);
  });

  it('a cancel that does not commit takes the returned stock off hand again: the order is still processing, its stock still sent', async () => {
    const stock = await onHand();
    const p = await orderInState(s, t, 'processing', number());
    const sent = less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 });
    // The order change fails after stock gave the stock back (writing the order row), as a crash or a lost connection would.
    const res = await refusingOrderWrites(s, p.uuid, 'cancelled', () => s.gql<any>(s.urls.orders, t.shop, CANCEL_ORDER, { uuid: p.uuid }));
    expect(res.errors).toHaveLength(1);
    const still = (await s.ok<any>(t.backOffice, `query ($uuid: ID!) { order(uuid: $uuid) { status fulfilments { status } } }`, { uuid: p.uuid })).order;
    expect(still).toEqual({ status: 'processing', fulfilments: [{ status: 'processing' }, { status: 'processing' }] });
    expect(await onHand()).toEqual(sent);
    expect((await holdsOf(s, p.uuid, 'consumed')).length).toBe(2);
    expect(await adjustmentKinds(p.uuid)).toEqual([
      ['consume', -1],
      ['consume', -1],
      ['return', 1],
      ['return', 1],
      ['consume', -1],
      ['consume', -1],
    ]);

    // Cancelled for real afterwards: back once.
    expect((await cancel(p.uuid)).status).toBe('cancelled');
    expect(await onHand()).toEqual(stock);
  });

  it('a draft processed now whose change does not commit takes nothing: its stock is back on hand, and processing it again takes it once', async () => {
    const stock = await onHand();
    const feed = await figures();
    const d = await orderInState(s, t, 'draft', number());
    // Held and consumed in the one change, which then fails writing the order row.
    const res = await refusingOrderWrites(s, d.uuid, 'processing', () => s.gql<any>(s.urls.orders, t.backOffice, PROCESS_NOW, { uuid: d.uuid }));
    expect(res.errors).toHaveLength(1);
    const still = (await s.ok<any>(t.backOffice, `query ($uuid: ID!) { order(uuid: $uuid) { status confirmedAt fulfilments { status } } }`, { uuid: d.uuid })).order;
    expect(still).toEqual({ status: 'draft', confirmedAt: null, fulfilments: [] });
    expect(await onHand()).toEqual(stock);
    expect(await figures()).toEqual(feed);
    expect(await holdsOf(s, d.uuid, 'placed')).toEqual([]);
    expect(await holdsOf(s, d.uuid, 'consumed')).toEqual([]);

    const p = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: d.uuid })).processOrderNow;
    expect(p.status).toBe('processing');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 }));
    await cancel(d.uuid);
    expect(await onHand()).toEqual(stock);
  });

  it('a reserved draft processed now whose change does not commit holds its reservation again, and nothing is taken', async () => {
    const stock = await onHand();
    const created = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1], ['SKU-C', 1]], { reserve: true }) })).createOrder;
    const reserved = await holdsOf(s, created.uuid, 'placed');
    expect(reserved).toHaveLength(2);
    const res = await refusingOrderWrites(s, created.uuid, 'processing', () => s.gql<any>(s.urls.orders, t.backOffice, PROCESS_NOW, { uuid: created.uuid }));
    expect(res.errors).toHaveLength(1);
    expect(await onHand()).toEqual(stock);
    expect(await holdsOf(s, created.uuid, 'placed')).toEqual(reserved);
    expect(await holdsOf(s, created.uuid, 'consumed')).toEqual([]);
    await cancel(created.uuid);
    expect(await holdsOf(s, created.uuid, 'placed')).toEqual([]);
  });

  it('a queued order whose sending does not commit still holds its stock: a cancel then gives all of it back', async () => {
    const stock = await onHand();
    const feed = await figures();
    const q = await orderInState(s, t, 'queued', number());
    const held = await holdsOf(s, q.uuid, 'placed');
    expect(held).toHaveLength(2);
    const res = await refusingOrderWrites(s, q.uuid, 'processing', () => s.gql<any>(s.urls.orders, t.backOffice, PROCESS_NOW, { uuid: q.uuid }));
    expect(res.errors).toHaveLength(1);
    // Consumed, then placed again: the order as committed is queued with its holds.
    expect(await holdsOf(s, q.uuid, 'placed')).toEqual(held);
    expect(await holdsOf(s, q.uuid, 'consumed')).toEqual([]);
    expect(await onHand()).toEqual(stock);
    expect((await cancel(q.uuid)).status).toBe('cancelled');
    expect(await onHand()).toEqual(stock);
    expect(await figures()).toEqual(feed);
  });

  it('the stock service unreachable: the cancel is refused (worth retrying) and changes nothing', async () => {
    const stock = await onHand();
    const p = await orderInState(s, t, 'processing', number());
    const cut = await s.startOrders({ STOCK_URL: 'http://127.0.0.1:9/graphql', STOCK_TIMEOUT_MS: '2000' }, { start: false });
    try {
      const res = await s.gql<any>(cut.url, t.shop, CANCEL_ORDER, { uuid: p.uuid });
      expect(problemOf(res).problemType).toBe('unavailable');
    } finally {
      await cut.stop();
    }
    expect((await s.ok<any>(t.backOffice, `query ($uuid: ID!) { order(uuid: $uuid) { status } }`, { uuid: p.uuid })).order.status).toBe('processing');
    expect(await onHand()).toEqual(less(stock, { 'SKU-A@leeds': 1, 'SKU-C@berlin': 1 }));
  });
});
