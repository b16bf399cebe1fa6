import { GB_ADDRESS, lines, orderHolds, ordersApi, ordersCaughtUp, seedCatalog, warehouseStock, type OrdersApi, type SeededCatalog } from './support/orders';
import { closeAgents, seedTeam, startSystem, type IssuedToken, type RunningEdge, type System } from './support/system';

/**
 * Identical requests racing through the real system: the orders service, not luck, keeps one
 * order per orderNumber and one set of holds per order.
 */
describe('orders under concurrency', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let catalog: SeededCatalog;
  let api: OrdersApi;
  const CONCURRENCY = 50;

  beforeAll(async () => {
    sys = await startSystem({ catalog: true, orders: true });
    // Enough connections to the gateway that the 50 requests really overlap.
    edge = await sys.startEdge({ UPSTREAM_CONNECTIONS: '64' });
    acme = await seedTeam(sys, 'acme', ['shop']);
    catalog = await seedCatalog(sys, 'acme');
    api = ordersApi(sys, () => edge, 'acme-shop', () => acme.shop!.token);
    await ordersCaughtUp(sys);
  }, 120_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  }, 60_000);

  it(`${CONCURRENCY} identical POST /orders create exactly one order, each answered 201 with it, none 500`, async () => {
    const body = { orderNumber: 'RACE-1', orderLines: lines(['MUG', 2], ['CAP', 1]), shippingDetails: GB_ADDRESS };
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => api.call('POST', '/orders', { body })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    expect(new Set(results.map((r) => r.body.uuid)).size).toBe(1);
    const list = await api.call('GET', '/orders?order-number=RACE-1');
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({ uuid: results[0]!.body.uuid, status: 'draft' });
  }, 60_000);

  it(`${CONCURRENCY} identical POST /orders with reserve: true: one order, its stock held once`, async () => {
    const heldBefore = (await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held;
    const body = { orderNumber: 'RACE-2', orderLines: lines(['MUG', 4]), reserve: true };
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => api.call('POST', '/orders', { body })));
    expect(results.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
    expect(new Set(results.map((r) => r.body.uuid)).size).toBe(1);
    expect((await api.call('GET', '/orders?order-number=RACE-2')).body.meta.total).toBe(1);
    const holds = (await orderHolds(sys, 'acme', results[0]!.body.uuid)).filter((h) => h.status === 'PLACED');
    expect(holds.map((h) => [h.lineNumber, h.quantity])).toEqual([[1, 4]]);
    expect((await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held).toBe(heldBefore + 4);
  }, 60_000);

  // Each confirm waits for the order's row lock holding one pool connection, and must need no
  // second one: with the pool exhausted by waiters, a second connection would never come.
  it(`${CONCURRENCY} concurrent confirms of one order: every one 202 with the same order, its stock held once`, async () => {
    const created = await api.call('POST', '/orders', { body: { orderNumber: 'RACE-3', orderLines: lines(['MUG', 3], ['CAP', 2]), shippingDetails: GB_ADDRESS } });
    expect(created.status).toBe(201);
    const uuid = created.body.uuid;
    const mugBefore = (await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held;
    const capBefore = (await warehouseStock(sys, 'acme', catalog.products.CAP!.uuid)).berlin!.held;

    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => api.call('PUT', `/orders/${uuid}/confirm`, { body: { shippingMethodCode: 'rm48' } })),
    );
    expect(results.map((r) => r.status).filter((s) => s !== 202)).toEqual([]);
    const final = (await api.call('GET', `/orders/${uuid}`)).body.data;
    for (const r of results) expect(r.body.data).toEqual(final);
    expect(final.status).toBe('queued');
    expect(final.fulfilments).toHaveLength(2);

    const holds = (await orderHolds(sys, 'acme', uuid)).filter((h) => h.status === 'PLACED');
    expect(holds.map((h) => [h.lineNumber, h.quantity]).sort()).toEqual([
      [1, 3],
      [2, 2],
    ]);
    expect((await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held).toBe(mugBefore + 3);
    expect((await warehouseStock(sys, 'acme', catalog.products.CAP!.uuid)).berlin!.held).toBe(capBefore + 2);
  }, 60_000);
});
