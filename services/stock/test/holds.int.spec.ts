import { randomUUID } from 'node:crypto';
import type { ProductState } from '@pf/platform/events/catalog';
import {
  backOffice,
  channelOf,
  CONSUME_HOLDS,
  feedOf,
  HOLD_STOCK,
  lastOutboxSeq,
  ORDER_HOLDS,
  ordersService,
  outboxAfter,
  RELEASE_HOLDS,
  setStock,
  startStock,
  stockRowsWithPlaced,
  UPDATE_WAREHOUSE,
  warehouse,
  type StockHarness,
} from './harness';

describe('holds for orders', () => {
  let h: StockHarness;
  const team = 'hold';
  let a: string;
  let b: string;
  let c: string;

  beforeAll(async () => {
    h = await startStock();
    a = await warehouse(h, team, 'a', { countryCode: 'GB' });
    b = await warehouse(h, team, 'b', { countryCode: 'NL' });
    c = await warehouse(h, team, 'c', { countryCode: 'US', enabled: false });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  const hold = (orderUuid: string, lines: { lineNumber: number; productUuid: string; quantity: number }[]) =>
    h.ok(ordersService, HOLD_STOCK, { input: { teamCode: team, orderUuid, lines } }).then((d) => d.holdStock);

  const rows = (productUuid: string) => stockRowsWithPlaced(h, productUuid);

  async function figure(p: ProductState): Promise<number | undefined> {
    return (await feedOf(h, channelOf(team))).get(p.productUuid)?.stock;
  }

  it('20 concurrent holds for the last 5 units: exactly 5 held, 15 refused, stock never negative', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 5);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => hold(randomUUID(), [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }])),
    );
    const held = results.filter((r) => r.__typename === 'StockHeld');
    const short = results.filter((r) => r.__typename === 'StockShort');
    expect(held).toHaveLength(5);
    expect(short).toHaveLength(15);
    for (const s of short) expect(s.shortages).toEqual([{ productUuid: p.productUuid, sku: p.sku, requested: 1, available: 0 }]);
    // `held` on the stock row is exactly the sum of the placed holds; nothing went below 0.
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 5, held: 5, placed: 5 }]);
    expect(await figure(p)).toBe(0);
  }, 30_000);

  it('the same race with the last 5 units split over two warehouses and orders of 1-2 units', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 2);
    await setStock(h, team, p.productUuid, b, 3);
    const quantities = Array.from({ length: 20 }, (_, i) => 1 + (i % 2));
    const results = await Promise.all(quantities.map((quantity) => hold(randomUUID(), [{ lineNumber: 1, productUuid: p.productUuid, quantity }])));
    const heldUnits = results.reduce((sum, r, i) => sum + (r.__typename === 'StockHeld' ? quantities[i]! : 0), 0);
    expect(heldUnits).toBe(5);
    const stored = await rows(p.productUuid);
    expect(stored.map((r) => [r.code, r.on_hand, r.held === r.placed, r.held <= r.on_hand])).toEqual([
      ['a', 2, true, true],
      ['b', 3, true, true],
    ]);
    expect(stored.reduce((s, r) => s + r.held, 0)).toBe(5);
  }, 30_000);

  it('is all or nothing and reports every short SKU with requested and available', async () => {
    const ok = await h.product(team);
    const short1 = await h.product(team);
    const short2 = await h.product(team, { sku: null });
    await setStock(h, team, ok.productUuid, a, 10);
    await setStock(h, team, short1.productUuid, a, 1);
    await setStock(h, team, short1.productUuid, c, 50); // disabled: not available
    const order = randomUUID();
    const result = await hold(order, [
      { lineNumber: 1, productUuid: ok.productUuid, quantity: 2 },
      { lineNumber: 2, productUuid: short1.productUuid, quantity: 2 },
      { lineNumber: 3, productUuid: short2.productUuid, quantity: 1 },
      { lineNumber: 4, productUuid: short1.productUuid, quantity: 1 },
    ]);
    expect(result).toEqual({
      __typename: 'StockShort',
      orderUuid: order,
      shortages: [
        { productUuid: short1.productUuid, sku: short1.sku, requested: 3, available: 1 },
        { productUuid: short2.productUuid, sku: null, requested: 1, available: 0 },
      ],
    });
    expect(await h.ok(backOffice(team), ORDER_HOLDS, { orderUuid: order })).toEqual({ orderHolds: [] });
    expect((await rows(ok.productUuid))[0]!.held).toBe(0);
  });

  it('allocates a line to one warehouse, splits only when none covers it, and returns each supplier location', async () => {
    const one = await h.product(team);
    const split = await h.product(team);
    await setStock(h, team, one.productUuid, a, 1);
    await setStock(h, team, one.productUuid, b, 6);
    await setStock(h, team, split.productUuid, a, 3);
    await setStock(h, team, split.productUuid, b, 4);
    const result = await hold(randomUUID(), [
      { lineNumber: 1, productUuid: one.productUuid, quantity: 5 },
      { lineNumber: 2, productUuid: split.productUuid, quantity: 7 },
    ]);
    expect(result.__typename).toBe('StockHeld');
    expect(result.lines).toEqual([
      { lineNumber: 1, productUuid: one.productUuid, sku: one.sku, quantity: 5, allocations: [{ quantity: 5, location: { code: 'b', countryCode: 'NL', printOnDemand: false } }] },
      {
        lineNumber: 2,
        productUuid: split.productUuid,
        sku: split.sku,
        quantity: 7,
        allocations: [
          { quantity: 4, location: { code: 'b', countryCode: 'NL', printOnDemand: false } },
          { quantity: 3, location: { code: 'a', countryCode: 'GB', printOnDemand: false } },
        ],
      },
    ]);
    expect(await figure(one)).toBe(2);
    expect(await figure(split)).toBe(0);
  });

  it('never runs print-on-demand short: a covering warehouse first, else the print-on-demand location', async () => {
    const pod = await h.product(team, { podEnabled: true, podApproved: true });
    await setStock(h, team, pod.productUuid, a, 2);
    const seq = await lastOutboxSeq(h);
    const result = await hold(randomUUID(), [
      { lineNumber: 1, productUuid: pod.productUuid, quantity: 2 },
      { lineNumber: 2, productUuid: pod.productUuid, quantity: 500 },
    ]);
    expect(result.lines.map((l: any) => l.allocations)).toEqual([
      [{ quantity: 2, location: { code: 'a', countryCode: 'GB', printOnDemand: false } }],
      [{ quantity: 500, location: { code: 'print-on-demand', countryCode: 'GB', printOnDemand: true } }],
    ]);
    expect(await figure(pod)).toBe(10_000);
    // Only the warehouse part moved the figure (10002 -> 10000).
    expect((await outboxAfter(h, seq)).map((r) => r.envelope.payload)).toEqual([expect.objectContaining({ productUuid: pod.productUuid, previousStock: 10_002, stock: 10_000 })]);
  });

  it('holding again for the same order is idempotent, and replaces the holds atomically when the lines change', async () => {
    const p = await h.product(team);
    const q = await h.product(team);
    await setStock(h, team, p.productUuid, a, 10);
    await setStock(h, team, q.productUuid, b, 10);
    const order = randomUUID();
    const lines = [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 3 },
      { lineNumber: 2, productUuid: q.productUuid, quantity: 4 },
    ];
    const first = await hold(order, lines);
    const { rows: before } = await h.pool.query('SELECT id, status FROM stock.stock_hold WHERE order_uuid = $1 ORDER BY id', [order]);
    const seq = await lastOutboxSeq(h);
    // The same answer, except that the holds it had before are the ones it keeps.
    expect(first.previousHoldIds).toEqual([]);
    expect(await hold(order, lines)).toEqual({ ...first, previousHoldIds: before.map((r) => String(r.id)) });
    const { rows: after } = await h.pool.query('SELECT id, status FROM stock.stock_hold WHERE order_uuid = $1 ORDER BY id', [order]);
    expect(after).toEqual(before);
    expect(await outboxAfter(h, seq)).toEqual([]);

    // Amendment: line 1 grows to 8, line 2 goes, line 3 arrives.
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 8 },
      { lineNumber: 3, productUuid: q.productUuid, quantity: 1 },
    ]);
    const { orderHolds } = await h.ok(backOffice(team), ORDER_HOLDS, { orderUuid: order });
    expect(orderHolds.map((x: any) => [x.lineNumber, x.quantity, x.status, x.location.code])).toEqual([
      [1, 3, 'RELEASED', 'a'],
      [1, 8, 'PLACED', 'a'],
      [2, 4, 'RELEASED', 'b'],
      [3, 1, 'PLACED', 'b'],
    ]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 10, held: 8, placed: 8 }]);
    expect(await rows(q.productUuid)).toEqual([{ code: 'b', on_hand: 10, held: 1, placed: 1 }]);

    // An amendment asking for more than there is changes nothing: the previous holds stay.
    const refused = await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 11 }]);
    expect(refused.shortages).toEqual([{ productUuid: p.productUuid, sku: p.sku, requested: 11, available: 10 }]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 10, held: 8, placed: 8 }]);
  });

  it('a disabled warehouse keeps what it holds for an order: held again there for the same or fewer, never for more or for another order', async () => {
    const p = await h.product(team);
    const d = await warehouse(h, team, `d${Date.now() % 100000}`, { countryCode: 'GB' });
    await setStock(h, team, p.productUuid, d, 3);
    const order = randomUUID();
    const line = (quantity: number) => [{ lineNumber: 1, productUuid: p.productUuid, quantity }];
    expect((await hold(order, line(3))).__typename).toBe('StockHeld');
    await h.ok(backOffice(team), UPDATE_WAREHOUSE, { id: d, input: { enabled: false } });
    // The same lines again (a reserved draft confirmed), then fewer (an amendment): kept where they are.
    expect(await hold(order, line(3))).toMatchObject({ __typename: 'StockHeld' });
    expect(await hold(order, line(2))).toMatchObject({ __typename: 'StockHeld' });
    expect(await rows(p.productUuid)).toEqual([{ code: expect.any(String), on_hand: 3, held: 2, placed: 2 }]);
    // More than it holds there, or another order: the disabled warehouse sells nothing new.
    expect(await hold(order, line(3))).toMatchObject({ __typename: 'StockShort', shortages: [{ requested: 3, available: 2 }] });
    expect(await hold(randomUUID(), line(1))).toMatchObject({ __typename: 'StockShort', shortages: [{ requested: 1, available: 0 }] });
    expect(await figure(p)).toBe(0);
  });

  it('releases every placed hold of an order, once', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 4);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 3 }]);
    expect(await figure(p)).toBe(1);
    const seq = await lastOutboxSeq(h);
    const { releaseHolds } = await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order });
    expect(releaseHolds).toEqual([{ lineNumber: 1, productUuid: p.productUuid, quantity: 3, status: 'RELEASED', releasedAt: expect.any(String), location: { code: 'a' } }]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 4, held: 0, placed: 0 }]);
    expect(await figure(p)).toBe(4);
    expect((await outboxAfter(h, seq)).map((r) => r.envelope.payload)).toEqual([expect.objectContaining({ previousStock: 1, stock: 4 })]);
    expect(await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order })).toEqual({ releaseHolds: [] });
  });

  it('consumes holds per supplier location when fulfilments are sent: stock leaves, the figure stays', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 2);
    await setStock(h, team, p.productUuid, b, 4);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 5 }]); // b 4 + a 1
    expect(await figure(p)).toBe(1);
    const seq = await lastOutboxSeq(h);
    const { consumeHolds } = await h.ok(ordersService, CONSUME_HOLDS, { orderUuid: order, locationCodes: ['b'] });
    expect(consumeHolds).toEqual([{ id: expect.any(String), lineNumber: 1, productUuid: p.productUuid, quantity: 4, status: 'CONSUMED', consumedAt: expect.any(String), location: { code: 'b' } }]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 2, held: 1, placed: 1 },
      { code: 'b', on_hand: 0, held: 0, placed: 0 },
    ]);
    expect(await figure(p)).toBe(1);
    expect(await outboxAfter(h, seq)).toEqual([]);
    await h.ok(ordersService, CONSUME_HOLDS, { orderUuid: order });
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 1, held: 0, placed: 0 },
      { code: 'b', on_hand: 0, held: 0, placed: 0 },
    ]);
    expect(await figure(p)).toBe(1);
    const { stockAdjustments } = await h.ok(backOffice(team), `query ($p: ID!) { stockAdjustments(productUuid: $p) { kind delta onHandAfter reason actor warehouse { code } } }`, {
      p: p.productUuid,
    });
    expect(stockAdjustments.slice(0, 2)).toEqual([
      { kind: 'CONSUME', delta: -1, onHandAfter: 1, reason: `Order ${order} line 1 sent`, actor: 'service:orders', warehouse: { code: 'a' } },
      { kind: 'CONSUME', delta: -4, onHandAfter: 0, reason: `Order ${order} line 1 sent`, actor: 'service:orders', warehouse: { code: 'b' } },
    ]);
    // Nothing left to consume or release.
    expect(await h.ok(ordersService, CONSUME_HOLDS, { orderUuid: order })).toEqual({ consumeHolds: [] });
    expect(await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order })).toEqual({ releaseHolds: [] });
  });

  it('refuses products of another team (naming the line), and callers other than our services', async () => {
    const mine = await h.product(team);
    const theirs = await h.product('other');
    const input = { teamCode: team, orderUuid: randomUUID(), lines: [{ lineNumber: 1, productUuid: mine.productUuid, quantity: 1 }, { lineNumber: 2, productUuid: theirs.productUuid, quantity: 1 }] };
    expect(await h.problem(ordersService, HOLD_STOCK, { input })).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'input.lines[1].productUuid' }] });
    expect(await h.problem(backOffice(team), HOLD_STOCK, { input })).toMatchObject({ problemType: 'forbidden' });
    expect(await h.problem(channelOf(team), RELEASE_HOLDS, { orderUuid: input.orderUuid })).toMatchObject({ problemType: 'forbidden' });
    expect(
      await h.problem(ordersService, HOLD_STOCK, { input: { ...input, lines: [{ lineNumber: 1, productUuid: mine.productUuid, quantity: 0 }, { lineNumber: 1, productUuid: 'x', quantity: 1 }] } }),
    ).toMatchObject({ violations: [{ property: 'input.lines[0].quantity' }, { property: 'input.lines[1].lineNumber' }, { property: 'input.lines[1].productUuid' }] });
  });

  it('a deleted product cannot be held: it is short with nothing available', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 9);
    await h.updateProduct(p, { deleted: true });
    const result = await hold(randomUUID(), [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]);
    expect(result.shortages).toEqual([{ productUuid: p.productUuid, sku: p.sku, requested: 1, available: 0 }]);
  });

  it('shows an order\'s holds to its team\'s back-office only', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 1);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 7, productUuid: p.productUuid, quantity: 1 }]);
    const { orderHolds } = await h.ok(backOffice(team), ORDER_HOLDS, { orderUuid: order });
    expect(orderHolds).toEqual([
      {
        orderUuid: order,
        lineNumber: 7,
        productUuid: p.productUuid,
        sku: p.sku,
        quantity: 1,
        status: 'PLACED',
        placedAt: expect.any(String),
        releasedAt: null,
        consumedAt: null,
        location: { code: 'a', countryCode: 'GB', printOnDemand: false },
      },
    ]);
    expect(await h.ok(backOffice('other'), ORDER_HOLDS, { orderUuid: order })).toEqual({ orderHolds: [] });
    expect(await h.problem(channelOf(team), ORDER_HOLDS, { orderUuid: order })).toMatchObject({ problemType: 'forbidden' });
  });
});
