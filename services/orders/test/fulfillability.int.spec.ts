import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import { createLogger } from '@pf/platform/logging';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { applyStockLevelEvents, STOCK_FIGURES_CONSUMER } from '../src/use-cases/stock-fulfillability';
import { AMEND_ORDER, CANCEL_ORDER, CONFIRM_ORDER, CREATE_ORDER, createTeam, ORDER, orderInput, SAVE_AS_DRAFT, SET_FULFILLABLE, startSystem, type OrdersSystem, type TeamFixture } from './harness';

const SET_STOCK = /* GraphQL */ `mutation ($input: SetStockInput!) { setStock(input: $input) { onHand } }`;
const ADJUST_STOCK = /* GraphQL */ `mutation ($input: AdjustStockInput!) { adjustStock(input: $input) { onHand } }`;

/**
 * fulfillableStatus follows stock (docs/orders.md): the stock service's real mutations send
 * `stock-level.changed` through its outbox and the bus; the orders service's stock read model
 * takes them and derives the status of orders whose stock is not theirs yet.
 */
describe('fulfillableStatus from stock', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  const SKUS = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9', 'P10', 'P11', 'P12', 'P13'];

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: '600' } });
    t = await createTeam(s, undefined, { stock: Object.fromEntries(SKUS.map((sku) => [sku, { leeds: 10 }])) });
    // The initial counts reached the stock read model.
    for (const sku of SKUS) await waitFigure(sku, 10);
  }, 90_000);
  afterAll(async () => s?.close(), 30_000);

  const product = (sku: string) => t.products[sku]!;
  async function figureOf(sku: string): Promise<number | undefined> {
    const { rows } = await s.pool.query('SELECT stock FROM orders.stock_figure WHERE product_uuid = $1', [product(sku)]);
    return rows[0]?.stock;
  }
  /** Waits until the read model has the figure; the orders it concerns were derived in the same transaction. */
  async function waitFigure(sku: string, stock: number): Promise<void> {
    await eventually(async () => ((await figureOf(sku)) === stock ? true : undefined), 15_000);
  }
  const setStock = (sku: string, quantity: number) =>
    s.call('stock', t.backOffice, SET_STOCK, { input: { productUuid: product(sku), warehouseId: t.warehouses.leeds, quantity, reason: 'count' } });
  const adjustStock = (sku: string, delta: number) =>
    s.call('stock', t.backOffice, ADJUST_STOCK, { input: { productUuid: product(sku), warehouseId: t.warehouses.leeds, delta, reason: 'adjust' } });
  const create = async (lines: [string, number][], extra: Record<string, unknown> = {}) =>
    (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(`f-${uniqueSuffix()}`, lines, extra) })).createOrder;
  const statusOf = async (uuid: string): Promise<string> => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order.fulfillableStatus;
  const waitStatus = (uuid: string, status: string) => eventually(async () => ((await statusOf(uuid)) === status ? true : undefined), 15_000);
  async function fulfillableEvents(uuid: string): Promise<{ originalFulfillableStatus: string; currentFulfillableStatus: string; order: any }[]> {
    const rows = await s.outboxAfter(0);
    return rows.filter((r) => r.event_key === uuid && r.envelope.type === 'order.fulfillable-status-changed').map((r) => r.envelope.payload);
  }
  const demandOf = async (uuid: string) =>
    (await s.pool.query('SELECT product_uuid::text AS product, needed FROM orders.stock_demand WHERE order_uuid = $1 ORDER BY product_uuid', [uuid])).rows;
  const transitions = async (uuid: string) => (await fulfillableEvents(uuid)).map((e) => `${e.originalFulfillableStatus}>${e.currentFulfillableStatus}`);

  it('a draft whose product runs out becomes not-fulfillable with exactly one event, partially when some is back, fulfillable when restocked', async () => {
    const o = await create([['P1', 2]]);
    expect(o.fulfillableStatus).toBe('fulfillable');

    await setStock('P1', 0);
    await waitStatus(o.uuid, 'not-fulfillable');
    await waitFigure('P1', 0);
    const [event] = await fulfillableEvents(o.uuid);
    expect(await transitions(o.uuid)).toEqual(['fulfillable>not-fulfillable']);
    expect(event!.order).toMatchObject({ orderUuid: o.uuid, fulfillableStatus: 'not-fulfillable', status: 'draft', origin: 'api' });

    await adjustStock('P1', 1);
    await waitStatus(o.uuid, 'partially-fulfillable');
    await adjustStock('P1', 5);
    await waitStatus(o.uuid, 'fulfillable');
    await waitFigure('P1', 6);
    expect(await transitions(o.uuid)).toEqual(['fulfillable>not-fulfillable', 'not-fulfillable>partially-fulfillable', 'partially-fulfillable>fulfillable']);
  });

  it('two products: one gone is partially-fulfillable, both gone not-fulfillable', async () => {
    const o = await create([['P2', 1], ['P3', 1]]);
    await setStock('P3', 0);
    await waitStatus(o.uuid, 'partially-fulfillable');
    await setStock('P2', 0);
    await waitStatus(o.uuid, 'not-fulfillable');
    await waitFigure('P2', 0);
    expect(await transitions(o.uuid)).toEqual(['fulfillable>partially-fulfillable', 'partially-fulfillable>not-fulfillable']);
  });

  it('orders with stock held (reserved, confirmed) keep their status; a draft on the same product beside them does not', async () => {
    const reserved = await create([['P4', 2]], { reserve: true });
    expect(reserved.stockHeld).toBe(true);
    const confirmed = await create([['P4', 2]]);
    await s.ok(t.shop, CONFIRM_ORDER, { uuid: confirmed.uuid });
    const draft = await create([['P4', 2]]);

    // 10 on hand, 4 held: counting 4 leaves nothing to sell (the figure S1 is 0).
    await setStock('P4', 4);
    await waitStatus(draft.uuid, 'not-fulfillable');
    await waitFigure('P4', 0);
    expect(await statusOf(reserved.uuid)).toBe('fulfillable');
    expect(await statusOf(confirmed.uuid)).toBe('fulfillable');
    expect(await fulfillableEvents(reserved.uuid)).toEqual([]);
    expect(await fulfillableEvents(confirmed.uuid)).toEqual([]);
  });

  it('created when the stock is already gone: not-fulfillable from the start (in order.created), no change event', async () => {
    await setStock('P5', 0);
    await waitFigure('P5', 0);
    const o = await create([['P5', 1]]);
    expect(o.fulfillableStatus).toBe('not-fulfillable');
    const created = (await s.outboxAfter(0)).find((r) => r.event_key === o.uuid && r.envelope.type === 'order.created');
    expect(created!.envelope.payload.order.fulfillableStatus).toBe('not-fulfillable');
    expect(await fulfillableEvents(o.uuid)).toEqual([]);
  });

  it('a product nobody stocked is short from the start; print-on-demand covers it once approved and enabled', async () => {
    const createProduct = async (sku: string, input: Record<string, unknown> = {}) =>
      (await s.call<{ createProduct: { uuid: string } }>('catalog', t.backOffice, `mutation ($input: CreateProductInput!) { createProduct(input: $input) { uuid } }`, {
        input: { sku, name: sku, ...input },
      })).createProduct.uuid;
    const figureOfUuid = async (uuid: string): Promise<number | undefined> =>
      (await s.pool.query('SELECT stock FROM orders.stock_figure WHERE product_uuid = $1', [uuid])).rows[0]?.stock;
    const waitFigureOf = (uuid: string, stock: number) => eventually(async () => ((await figureOfUuid(uuid)) === stock ? true : undefined), 15_000);
    const waitKnown = (sku: string) =>
      eventually(async () => ((await s.pool.query('SELECT 1 FROM orders.product WHERE team_code = $1 AND sku = $2', [t.teamCode, sku])).rowCount ? true : undefined), 15_000);

    const unstocked = await createProduct('NEVER-STOCKED');
    const printed = await createProduct('PRINTED', { podEnabled: true, podApproved: true });
    const later = await createProduct('POD-LATER', { podEnabled: true });
    // Stock announced each product's first figure (stock-level.revised): 0, the sentinel, 0.
    await waitFigureOf(unstocked, 0);
    await waitFigureOf(printed, 10_000);
    await waitFigureOf(later, 0);
    for (const sku of ['NEVER-STOCKED', 'PRINTED', 'POD-LATER']) await waitKnown(sku);

    expect((await create([['NEVER-STOCKED', 1]])).fulfillableStatus).toBe('not-fulfillable');
    expect((await create([['PRINTED', 3]])).fulfillableStatus).toBe('fulfillable');
    const o = await create([['POD-LATER', 2]]);
    expect(o.fulfillableStatus).toBe('not-fulfillable');

    // Approving print-on-demand is not pushed to channels, but the figure it sets reaches orders.
    await s.call('catalog', t.backOffice, `mutation ($uuid: ID!, $input: UpdateProductInput!) { updateProduct(uuid: $uuid, input: $input) { uuid } }`, {
      uuid: later,
      input: { podApproved: true },
    });
    await waitStatus(o.uuid, 'fulfillable');
    expect(await transitions(o.uuid)).toEqual(['not-fulfillable>fulfillable']);
  });

  it('a replay with other lines derives the status again (one event); the same replay again sends nothing', async () => {
    await setStock('P6', 0);
    await waitFigure('P6', 0);
    const input = orderInput(`f-${uniqueSuffix()}`, [['P7', 1]]);
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input })).createOrder;
    expect(o.fulfillableStatus).toBe('fulfillable');
    const replay = { ...input, orderLines: [...input.orderLines, { lineNumber: 2, product: { sku: 'P6' }, quantity: 1 }] };
    expect((await s.ok<any>(t.shop, CREATE_ORDER, { input: replay })).createOrder.fulfillableStatus).toBe('partially-fulfillable');
    expect((await s.ok<any>(t.shop, CREATE_ORDER, { input: replay })).createOrder.fulfillableStatus).toBe('partially-fulfillable');
    expect(await transitions(o.uuid)).toEqual(['fulfillable>partially-fulfillable']);
  });

  it('a replay without reserve of a draft that held the last units: its own stock is back, still fulfillable, no event', async () => {
    const input = orderInput(`f-${uniqueSuffix()}`, [['P11', 10]], { reserve: true });
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input })).createOrder;
    expect(o).toMatchObject({ stockHeld: true, fulfillableStatus: 'fulfillable' });
    await waitFigure('P11', 0);
    const replaced = (await s.ok<any>(t.shop, CREATE_ORDER, { input: { ...input, reserve: false } })).createOrder;
    expect(replaced).toMatchObject({ stockHeld: false, fulfillableStatus: 'fulfillable' });
    await waitFigure('P11', 10);
    expect(await statusOf(o.uuid)).toBe('fulfillable');
    expect(await fulfillableEvents(o.uuid)).toEqual([]);
  });

  it('a merchant\'s status holds until a figure change alters what stock covers of the order, which derives it again', async () => {
    const o = await create([['P8', 2]]);
    await s.ok(t.backOffice, SET_FULFILLABLE, { uuid: o.uuid, value: 'not-fulfillable' });
    // 10 -> 9 still covers 2: the merchant's value stays.
    await adjustStock('P8', -1);
    await waitFigure('P8', 9);
    expect(await statusOf(o.uuid)).toBe('not-fulfillable');
    // 9 -> 1 no longer covers 2: derived again.
    await setStock('P8', 1);
    await waitStatus(o.uuid, 'partially-fulfillable');
    expect(await transitions(o.uuid)).toEqual(['fulfillable>not-fulfillable', 'not-fulfillable>partially-fulfillable']);
  });

  it('an amendment derives the status for the new lines, announced by order.revised only (O5); later figure changes follow the new lines', async () => {
    await setStock('P12', 0);
    await waitFigure('P12', 0);
    const o = await create([['P13', 1]]);
    const amended = (
      await s.ok<any>(t.shop, AMEND_ORDER, {
        uuid: o.uuid,
        input: { orderLines: [{ lineNumber: 1, product: { sku: 'P13' }, quantity: 1 }, { lineNumber: 2, product: { sku: 'P12' }, quantity: 3 }] },
      })
    ).amendOrderLines.order;
    expect(amended.fulfillableStatus).toBe('partially-fulfillable');
    const revised = (await s.outboxAfter(0)).filter((r) => r.event_key === o.uuid && r.envelope.type === 'order.revised');
    expect(revised.map((r) => r.envelope.payload.order.fulfillableStatus)).toEqual(['partially-fulfillable']);
    expect(await fulfillableEvents(o.uuid)).toEqual([]);
    await setStock('P12', 3);
    await waitStatus(o.uuid, 'fulfillable');
    expect(await transitions(o.uuid)).toEqual(['partially-fulfillable>fulfillable']);
  });

  it('taking stock for an order (confirmation) makes it fulfillable, with one event', async () => {
    const o = await create([['P9', 2]]);
    await s.ok(t.backOffice, SET_FULFILLABLE, { uuid: o.uuid, value: 'partially-fulfillable' });
    const confirmed = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: o.uuid })).confirmOrder;
    expect(confirmed).toMatchObject({ status: 'queued', stockHeld: true, fulfillableStatus: 'fulfillable' });
    expect(await transitions(o.uuid)).toEqual(['fulfillable>partially-fulfillable', 'partially-fulfillable>fulfillable']);
    expect(await demandOf(o.uuid)).toEqual([]);

    // Back to draft, its stock is released and follows the figures again: P9 has 8 for it... until it has none.
    await s.ok(t.backOffice, SAVE_AS_DRAFT, { uuid: o.uuid });
    expect(await demandOf(o.uuid)).toEqual([{ product: product('P9'), needed: 2 }]);
    await setStock('P9', 1);
    await waitStatus(o.uuid, 'partially-fulfillable');

    // Cancelled, it needs nothing any more.
    await s.ok(t.shop, CANCEL_ORDER, { uuid: o.uuid });
    expect(await demandOf(o.uuid)).toEqual([]);
  });

  it('a stock event delivered twice changes nothing the second time (inbox); an older one never overwrites a newer figure', async () => {
    const o = await create([['P10', 2]]);
    await setStock('P10', 0);
    await waitStatus(o.uuid, 'not-fulfillable');
    await setStock('P10', 7);
    await waitStatus(o.uuid, 'fulfillable');
    await waitFigure('P10', 7);
    const { rows } = await s.pool.query<{ envelope: EventEnvelope<any> }>(
      `SELECT envelope FROM stock.outbox_event WHERE envelope->>'type' = 'stock-level.changed' AND event_key = $1 ORDER BY seq`,
      [product('P10')],
    );
    const [toZero, toSeven] = rows.slice(-2).map((r) => r.envelope);
    expect(toZero!.payload.stock).toBe(0);
    expect(toSeven!.payload.stock).toBe(7);
    const before = await s.lastSeq();

    // Straight to the use case: both were applied already.
    const deps = { pool: s.pool, logger: createLogger('fulfillability-test', 'silent') };
    expect(await applyStockLevelEvents(deps, [toZero!, toSeven!])).toEqual({ applied: 0, duplicates: 2, ignored: 0, ordersChanged: 0 });

    // Through the bus again, then a real change of another product as a witness: the bus delivers
    // in order, so once the witness is in, the duplicate was handled.
    await s.bus.publish([{ topic: TOPICS.stockLevels, event: toZero! }]);
    const witness = (await figureOf('P1'))!;
    await adjustStock('P1', 1);
    await waitFigure('P1', witness + 1);
    expect(await figureOf('P10')).toBe(7);
    expect(await statusOf(o.uuid)).toBe('fulfillable');
    expect((await s.outboxAfter(before)).filter((r) => r.event_key === o.uuid)).toEqual([]);
    const inbox = await s.pool.query('SELECT count(*)::int AS n FROM orders.inbox_event WHERE consumer = $1 AND event_id = $2', [STOCK_FIGURES_CONSUMER, toZero!.id]);
    expect(inbox.rows[0].n).toBe(1);

    // A stale figure (older changedAt) under a new event id is not applied either.
    const stale = { ...toZero!, id: randomUUID() };
    expect(await applyStockLevelEvents(deps, [stale])).toEqual({ applied: 1, duplicates: 0, ignored: 0, ordersChanged: 0 });
    expect(await figureOf('P10')).toBe(7);
    expect(await statusOf(o.uuid)).toBe('fulfillable');
  });
});
