import { uniqueSuffix } from '@pf/platform/testing/infra';
import { CANCEL_ORDER, createTeam, holdsOf, ORDER, PROGRESS, startSystem, type OrdersSystem, type TeamFixture } from './harness';
import { orderInState, type TestOrder } from './states';
import { figures as feedOf, less, progressAt, refusingOrderWrites as refusing, stockOutboxSeq } from './stock-support';

/**
 * A draft fulfilment's placed holds follow it when a supplier ends it or takes it, and an order
 * that ends holds nothing (docs/orders.md, "When a draft fulfilment ends"), through the real stock
 * service. orderInState's orders: SKU-A ×1 from leeds, SKU-C ×1 from berlin (two fulfilments);
 * `holding` comes from queued via "not sent", so both fulfilments are drafts with placed holds.
 */
describe('placed holds of draft fulfilments that end, and of orders that end', () => {
  let s: OrdersSystem;
  let t: TeamFixture;

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: '600' } });
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const number = () => `d-${uniqueSuffix()}`;
  const problemOf = (res: any) => res.errors?.[0]?.extensions?.problem;

  /** On hand and held per `SKU@warehouse` of the team, as stock has it. */
  async function levels(): Promise<Record<string, { onHand: number; held: number }>> {
    const skuOf = new Map(Object.entries(t.products).map(([sku, uuid]) => [uuid, sku]));
    const { rows } = await s.pool.query<{ product_uuid: string; code: string; on_hand: number; held: number }>(
      `SELECT s.product_uuid::text AS product_uuid, w.code, s.on_hand, s.held FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id WHERE s.team_code = $1`,
      [t.teamCode],
    );
    return Object.fromEntries(rows.map((r) => [`${skuOf.get(r.product_uuid)}@${r.code}`, { onHand: r.on_hand, held: r.held }]));
  }
  /** `levels` with some changed by these amounts. */
  const moved = (before: Record<string, { onHand: number; held: number }>, by: Record<string, { onHand?: number; held?: number }>) =>
    Object.fromEntries(Object.entries(before).map(([k, v]) => [k, { onHand: v.onHand + (by[k]?.onHand ?? 0), held: v.held + (by[k]?.held ?? 0) }]));

  const figures = () => feedOf(s, t);

  /** The order's placed holds per supplier location code. */
  async function placedAt(uuid: string): Promise<string[]> {
    const codeOf = new Map(Object.entries(t.warehouses).map(([code, id]) => [id, code]));
    return (await holdsOf(s, uuid)).map((h) => codeOf.get(h.warehouse_id!)!).sort();
  }

  const progress = (order: TestOrder, code: string, status: string) => progressAt(s, t, order, code, status);
  const read = async (uuid: string) => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order as TestOrder;
  const statuses = (o: TestOrder) => Object.fromEntries(o.fulfilments.map((f: any) => [f.supplierLocation.code, f.status]));

  const refusingOrderWrites = <R>(uuid: string, status: string, run: () => Promise<R>) => refusing(s, uuid, status, run);

  it('a supplier cancels both drafts of a holding order: each releases its location\'s holds; the order ends failed holding nothing, the figures back to before the order', async () => {
    const stock = await levels();
    const feed = await figures();
    const o = await orderInState(s, t, 'holding', number());
    expect(o).toMatchObject({ status: 'holding', stockHeld: true });
    expect(statuses(o)).toEqual({ leeds: 'draft', berlin: 'draft' });
    expect(await placedAt(o.uuid)).toEqual(['berlin', 'leeds']);
    expect(await figures()).toEqual(less(feed, { 'SKU-A': 1, 'SKU-C': 1 }));

    const seq = await stockOutboxSeq(s);
    const one = await progress(o, 'berlin', 'cancelled');
    expect(one).toMatchObject({ status: 'holding', stockHeld: true });
    expect(await placedAt(o.uuid)).toEqual(['leeds']);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { held: 1 } }));
    expect(await figures()).toEqual(less(feed, { 'SKU-A': 1 }));
    // Integrations hear that SKU-C can be sold again (the webhooks service builds stock-level-updated from this).
    const { rows } = await s.pool.query(`SELECT envelope FROM stock.outbox_event WHERE seq > $1 ORDER BY seq`, [seq]);
    expect(rows.map((r) => [r.envelope.type, r.envelope.payload.sku, r.envelope.payload.stock - r.envelope.payload.previousStock])).toEqual([['stock-level.changed', 'SKU-C', 1]]);

    const both = await progress(o, 'leeds', 'cancelled');
    expect(both).toMatchObject({ status: 'failed', stockHeld: false });
    expect(await read(o.uuid)).toMatchObject({ status: 'failed', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect((await holdsOf(s, o.uuid, 'released')).length).toBe(2);
    expect(await levels()).toEqual(stock);
    expect(await figures()).toEqual(feed);
  });

  it('an order in error (sending kept failing): a draft cancelled by its supplier releases its holds, cancelling the order releases the rest', async () => {
    const stock = await levels();
    const o = await orderInState(s, t, 'error', number());
    expect(await placedAt(o.uuid)).toEqual(['berlin', 'leeds']);
    expect(await progress(o, 'leeds', 'cancelled')).toMatchObject({ status: 'error', stockHeld: true });
    expect(await placedAt(o.uuid)).toEqual(['berlin']);
    expect(await levels()).toEqual(moved(stock, { 'SKU-C@berlin': { held: 1 } }));
    const c = (await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid })).cancelOrder;
    expect(c).toMatchObject({ status: 'cancelled', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect(await levels()).toEqual(stock);
  });

  it('a supplier takes a draft of a holding order (processing): its holds are consumed as sending would; dispatched, and the other draft cancelled: partial, nothing held, only the dispatched stock gone', async () => {
    const stock = await levels();
    const feed = await figures();
    const o = await orderInState(s, t, 'holding', number());
    const taken = await progress(o, 'leeds', 'processing');
    expect(taken).toMatchObject({ status: 'holding', stockHeld: true });
    expect(statuses(taken)).toEqual({ leeds: 'processing', berlin: 'draft' });
    expect(await placedAt(o.uuid)).toEqual(['berlin']);
    expect(await holdsOf(s, o.uuid, 'consumed')).toEqual([{ line_number: 1, quantity: 1, warehouse_id: t.warehouses.leeds }]);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 }, 'SKU-C@berlin': { held: 1 } }));

    await progress(o, 'leeds', 'dispatched');
    const done = await progress(o, 'berlin', 'cancelled');
    expect(done).toMatchObject({ status: 'partial', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 } }));
    expect(await figures()).toEqual(less(feed, { 'SKU-A': 1 }));
  });

  it('a supplier takes the last draft of a holding order: consumed, nothing held any more, the order still holding until it ships', async () => {
    const stock = await levels();
    const o = await orderInState(s, t, 'holding', number());
    await progress(o, 'berlin', 'cancelled');
    const taken = await progress(o, 'leeds', 'processing');
    expect(taken).toMatchObject({ status: 'holding', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect(await holdsOf(s, o.uuid, 'consumed')).toEqual([{ line_number: 1, quantity: 1, warehouse_id: t.warehouses.leeds }]);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 } }));
    expect(await progress(o, 'leeds', 'dispatched')).toMatchObject({ status: 'partial', stockHeld: false });
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 } }));
  });

  it('a draft cancel that does not commit places its holds again: the order still holding both drafts, the figure as it was; the cancel that ends the order likewise', async () => {
    const o = await orderInState(s, t, 'holding', number());
    const stock = await levels();
    const feed = await figures();
    const placedIds = async () => (await s.pool.query(`SELECT id::text FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed' ORDER BY id`, [o.uuid])).rows.map((r) => r.id);
    const before = await placedIds();

    const res = await refusingOrderWrites(o.uuid, 'holding', () => s.gql<any>(s.urls.orders, t.backOffice, PROGRESS, { fulfilmentUuid: o.fulfilments[0]!.uuid, input: { status: 'cancelled' } }));
    expect(res.errors).toHaveLength(1);
    expect(await read(o.uuid)).toMatchObject({ status: 'holding', stockHeld: true, fulfilments: [{ status: 'draft' }, { status: 'draft' }] });
    // The very holds that were released are placed again.
    expect(await placedIds()).toEqual(before);
    expect(await levels()).toEqual(stock);
    expect(await figures()).toEqual(feed);

    // The cancel that would end the order (failed): the remaining holds come back too.
    await progress(o, 'berlin', 'cancelled');
    const failing = await refusingOrderWrites(o.uuid, 'failed', () => s.gql<any>(s.urls.orders, t.backOffice, PROGRESS, { fulfilmentUuid: o.fulfilments.find((f: any) => f.supplierLocation.code === 'leeds')!.uuid, input: { status: 'cancelled' } }));
    expect(failing.errors).toHaveLength(1);
    expect(await read(o.uuid)).toMatchObject({ status: 'holding', stockHeld: true });
    expect(await placedAt(o.uuid)).toEqual(['leeds']);

    // Done for real afterwards: released once.
    expect(await progress(o, 'leeds', 'cancelled')).toMatchObject({ status: 'failed', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect(await figures()).toEqual({ ...feed, 'SKU-A': feed['SKU-A']! + 1, 'SKU-C': feed['SKU-C']! + 1 });
  });

  it('an order cancel that does not commit places the very holds it released again, not holds anew', async () => {
    const o = await orderInState(s, t, 'queued', number());
    const placedIds = async () => (await s.pool.query(`SELECT id::text FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed' ORDER BY id`, [o.uuid])).rows.map((r) => r.id);
    const before = await placedIds();
    expect(before.length).toBeGreaterThan(0);
    const stock = await levels();
    const res = await refusingOrderWrites(o.uuid, 'cancelled', () => s.gql<any>(s.urls.orders, t.shop, CANCEL_ORDER, { uuid: o.uuid }));
    expect(res.errors).toHaveLength(1);
    expect(await read(o.uuid)).toMatchObject({ status: 'queued', stockHeld: true });
    expect(await placedIds()).toEqual(before);
    expect(await levels()).toEqual(stock);
  });

  it('the safety net: an order that ends with holds its fulfilments left behind (as before this fix) releases them, and consumes those of a fulfilment that shipped', async () => {
    const stock = await levels();
    // berlin cancelled and leeds taken by the supplier without any stock step, as the service used to leave them.
    const o = await orderInState(s, t, 'holding', number());
    const byCode = Object.fromEntries(o.fulfilments.map((f: any) => [f.supplierLocation.code, f.uuid]));
    await s.pool.query(`UPDATE orders.fulfilment SET status = 'cancelled' WHERE uuid = $1`, [byCode.berlin]);
    await s.pool.query(`UPDATE orders.fulfilment SET status = 'processing' WHERE uuid = $1`, [byCode.leeds]);
    expect(await placedAt(o.uuid)).toEqual(['berlin', 'leeds']);

    const done = await progress(o, 'leeds', 'dispatched');
    expect(done).toMatchObject({ status: 'partial', stockHeld: false });
    expect(await placedAt(o.uuid)).toEqual([]);
    expect(await holdsOf(s, o.uuid, 'consumed')).toEqual([{ line_number: 1, quantity: 1, warehouse_id: t.warehouses.leeds }]);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 } }));

    // Both cancelled behind the service's back: the order that fails releases both.
    const q = await orderInState(s, t, 'holding', number());
    const berlin = q.fulfilments.find((f: any) => f.supplierLocation.code === 'berlin')!;
    await s.pool.query(`UPDATE orders.fulfilment SET status = 'cancelled' WHERE uuid = $1`, [berlin.uuid]);
    expect(await progress(q, 'leeds', 'cancelled')).toMatchObject({ status: 'failed', stockHeld: false });
    expect(await placedAt(q.uuid)).toEqual([]);
    expect(await levels()).toEqual(moved(stock, { 'SKU-A@leeds': { onHand: -1 } }));
  });

  it('the stock service unreachable: cancelling a draft is refused (worth retrying) and changes nothing', async () => {
    const o = await orderInState(s, t, 'holding', number());
    const cut = await s.startOrders({ STOCK_URL: 'http://127.0.0.1:9/graphql', STOCK_TIMEOUT_MS: '2000' }, { start: false });
    try {
      const res = await s.gql<any>(cut.url, t.backOffice, PROGRESS, { fulfilmentUuid: o.fulfilments[0]!.uuid, input: { status: 'cancelled' } });
      expect(problemOf(res).problemType).toBe('unavailable');
    } finally {
      await cut.stop();
    }
    expect(await read(o.uuid)).toMatchObject({ status: 'holding', stockHeld: true, fulfilments: [{ status: 'draft' }, { status: 'draft' }] });
    expect(await placedAt(o.uuid)).toEqual(['berlin', 'leeds']);
  });
});
