import { randomUUID } from 'node:crypto';
import type { ProductState } from '@pf/platform/events/catalog';
import { StockLevelChanged } from '@pf/platform/events/stock';
import {
  backOffice,
  channelOf,
  CONSUME_HOLDS,
  feedOf,
  holdOrder,
  holdRowsOf,
  lastOutboxSeq,
  ordersService,
  outboxAfter,
  REINSTATE_HOLDS,
  RELEASE_HOLDS,
  RELEASE_HOLDS_AT,
  RESTORE_HOLDS,
  setStock,
  startStock,
  stockRowsWithPlaced,
  warehouse,
  type StockHarness,
} from './harness';

/**
 * Releasing an order's placed holds per supplier location (a draft fulfilment cancelled) and its
 * undo, reinstateHolds (docs/stock.md, "Releasing part of an order").
 */
describe('placed holds released per supplier location (releaseHolds with locationCodes, reinstateHolds)', () => {
  let h: StockHarness;
  const team = 'rel';
  let a: string;
  let b: string;

  beforeAll(async () => {
    h = await startStock();
    a = await warehouse(h, team, 'a', { countryCode: 'GB' });
    b = await warehouse(h, team, 'b', { countryCode: 'NL' });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  const hold = (orderUuid: string, lines: { lineNumber: number; productUuid: string; quantity: number }[]) => holdOrder(h, team, orderUuid, lines);
  const releaseAt = async (orderUuid: string, locationCodes: string[] | null) =>
    (await h.ok(ordersService, RELEASE_HOLDS_AT, { orderUuid, locationCodes })).releaseHolds as any[];
  const reinstate = async (orderUuid: string, holdIds: string[]) => (await h.ok(ordersService, REINSTATE_HOLDS, { orderUuid, holdIds })).reinstateHolds as any[];

  const rows = (productUuid: string) => stockRowsWithPlaced(h, productUuid);
  const holdsOf = (orderUuid: string) => holdRowsOf(h, team, orderUuid);
  const figure = async (p: ProductState) => (await feedOf(h, channelOf(team))).get(p.productUuid)?.stock;

  it('releases only the placed holds at the given locations: held down, on hand untouched, one event per product; again: nothing; the rest stays placed', async () => {
    const p = await h.product(team);
    const pod = await h.product(team, { podEnabled: true, podApproved: true });
    await setStock(h, team, p.productUuid, a, 3);
    await setStock(h, team, p.productUuid, b, 4);
    const order = randomUUID();
    const other = randomUUID();
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 5 }, // b 4 + a 1
      { lineNumber: 2, productUuid: pod.productUuid, quantity: 7 }, // print on demand
    ]);
    await hold(other, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]); // a
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 3, held: 2, placed: 2 },
      { code: 'b', on_hand: 4, held: 4, placed: 4 },
    ]);
    expect(await figure(p)).toBe(1);

    const seq = await lastOutboxSeq(h);
    const fromB = await releaseAt(order, ['b']);
    expect(fromB).toEqual([
      { id: expect.stringMatching(/^\d+$/), lineNumber: 1, productUuid: p.productUuid, quantity: 4, status: 'RELEASED', releasedAt: expect.any(String), location: { code: 'b' } },
    ]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 3, held: 2, placed: 2 },
      { code: 'b', on_hand: 4, held: 0, placed: 0 },
    ]);
    expect(await figure(p)).toBe(5);
    const events = await outboxAfter(h, seq);
    expect(events.map((e) => [e.topic, e.event_key, e.envelope.type])).toEqual([[StockLevelChanged.topic, p.productUuid, 'stock-level.changed']]);
    expect(events[0]!.envelope.payload).toEqual({ teamCode: team, productUuid: p.productUuid, sku: p.sku, stock: 5, previousStock: 1, changedAt: fromB[0].releasedAt });
    expect(await holdsOf(order)).toEqual([
      [1, 'a', 1, 'PLACED'],
      [1, 'b', 4, 'RELEASED'],
      [2, 'print-on-demand', 7, 'PLACED'],
    ]);

    // Again, or no location at all: nothing, no event.
    const seq2 = await lastOutboxSeq(h);
    expect(await releaseAt(order, ['b'])).toEqual([]);
    expect(await releaseAt(order, [])).toEqual([]);
    expect(await releaseAt(order, ['nowhere'])).toEqual([]);
    expect(await outboxAfter(h, seq2)).toEqual([]);

    // Print on demand held no stock: its hold is released, no row moves, no event.
    expect((await releaseAt(order, ['print-on-demand'])).map((x) => [x.lineNumber, x.location.code, x.status])).toEqual([[2, 'print-on-demand', 'RELEASED']]);
    expect(await outboxAfter(h, seq2)).toEqual([]);

    // Without locations (the mutation as it was): the rest of the order; the other order keeps its hold.
    const { releaseHolds } = await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order });
    expect(releaseHolds.map((x: any) => [x.lineNumber, x.location.code, x.quantity])).toEqual([[1, 'a', 1]]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 3, held: 1, placed: 1 },
      { code: 'b', on_hand: 4, held: 0, placed: 0 },
    ]);
    expect(await holdsOf(other)).toEqual([[1, 'a', 1, 'PLACED']]);
  });

  it('consumed holds are not released: the stock of a sent fulfilment left with it', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 2);
    await setStock(h, team, p.productUuid, b, 2);
    const order = randomUUID();
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 2 },
      { lineNumber: 2, productUuid: p.productUuid, quantity: 2 },
    ]); // one line per warehouse
    await h.ok(ordersService, CONSUME_HOLDS, { orderUuid: order, locationCodes: ['a'] });
    expect(await releaseAt(order, ['a'])).toEqual([]);
    expect((await releaseAt(order, null)).map((x) => x.location.code)).toEqual(['b']);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 0, held: 0, placed: 0 },
      { code: 'b', on_hand: 2, held: 0, placed: 0 },
    ]);
  });

  it('reinstateHolds undoes a release whose order change did not commit: the named holds are placed again, once', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 5);
    await setStock(h, team, p.productUuid, b, 5);
    const order = randomUUID();
    const other = randomUUID();
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 5 },
      { lineNumber: 2, productUuid: p.productUuid, quantity: 2 },
    ]); // line 1 from a, line 2 from b
    await hold(other, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]);
    const released = await releaseAt(order, ['a']);
    const otherReleased = await releaseAt(other, null);
    expect(await figure(p)).toBe(8);

    const seq = await lastOutboxSeq(h);
    // Another order's hold id named with this order: left alone.
    const back = await reinstate(order, [released[0].id, otherReleased[0].id]);
    expect(back).toEqual([{ id: released[0].id, lineNumber: 1, quantity: 5, status: 'PLACED', releasedAt: null, location: { code: 'a' } }]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 5, held: 5, placed: 5 },
      { code: 'b', on_hand: 5, held: 2, placed: 2 },
    ]);
    expect((await outboxAfter(h, seq)).map((e) => e.envelope.payload)).toEqual([expect.objectContaining({ previousStock: 8, stock: 3 })]);
    expect(await holdsOf(other)).toEqual([[1, expect.any(String), 1, 'RELEASED']]);

    // Undoing twice changes nothing; the order may be released again later.
    expect(await reinstate(order, [released[0].id])).toEqual([]);
    expect((await releaseAt(order, ['a'])).map((x) => x.quantity)).toEqual([5]);
    expect(await figure(p)).toBe(8);
  });

  it('reinstating is refused while the stock was sold elsewhere meanwhile (409 naming the product, nothing changes), and never places a line held again at that location', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 2);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 2 }]);
    const released = await releaseAt(order, ['a']);
    const rival = randomUUID();
    await hold(rival, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]);
    const seq = await lastOutboxSeq(h);
    expect(await h.problem(ordersService, REINSTATE_HOLDS, { orderUuid: order, holdIds: [released[0].id] })).toMatchObject({
      problemType: 'stock-unavailable',
      extensions: { shortages: [{ productUuid: p.productUuid, sku: p.sku, requested: 2, available: 1 }] },
    });
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 2, held: 1, placed: 1 }]);
    expect(await holdsOf(order)).toEqual([[1, 'a', 2, 'RELEASED']]);
    expect(await outboxAfter(h, seq)).toEqual([]);
    // The rival let go: the release can be undone again.
    await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: rival });
    expect((await reinstate(order, [released[0].id])).map((x) => x.status)).toEqual(['PLACED']);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 2, held: 2, placed: 2 }]);

    // The order held line 1 at a again after the release: the old hold stays released.
    await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order });
    const again = randomUUID();
    await hold(again, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]);
    const first = await releaseAt(again, null);
    await hold(again, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 2 }]);
    expect(await reinstate(again, [first[0].id])).toEqual([]);
    expect(await holdsOf(again)).toEqual([
      [1, 'a', 1, 'RELEASED'],
      [1, 'a', 2, 'PLACED'],
    ]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 2, held: 2, placed: 2 }]);
  });

  it('restoreHolds undoes a hold whose order change did not commit: the very holds the order had come back, where they were, in one change', async () => {
    const p = await h.product(team);
    const q = await h.product(team);
    await setStock(h, team, p.productUuid, a, 5);
    await setStock(h, team, p.productUuid, b, 20);
    await setStock(h, team, q.productUuid, a, 5);
    const order = randomUUID();
    const restore = async (holdIds: string[]) => (await h.ok(ordersService, RESTORE_HOLDS, { orderUuid: order, holdIds })).restoreHolds as any[];
    // Nothing held before: the first hold says so, and undoing it releases everything.
    const first = await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 3 }]);
    expect(first.previousHoldIds).toEqual([]);
    expect((await restore([])).map((x) => [x.lineNumber, x.location.code, x.status])).toEqual([[1, 'a', 'RELEASED']]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 5, held: 0, placed: 0 },
      { code: 'b', on_hand: 20, held: 0, placed: 0 },
    ]);

    // Held at a, which covers both lines; an amendment of line 1 to 8 moves it to b, line 2 stays.
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 3 },
      { lineNumber: 2, productUuid: q.productUuid, quantity: 1 },
    ]);
    const before = (await holdsOf(order)).filter((x) => x[3] === 'PLACED');
    expect(before).toEqual([
      [1, 'a', 3, 'PLACED'],
      [2, 'a', 1, 'PLACED'],
    ]);
    const amended = await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 8 },
      { lineNumber: 2, productUuid: q.productUuid, quantity: 1 },
    ]);
    expect(amended.previousHoldIds).toHaveLength(2);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 5, held: 0, placed: 0 },
      { code: 'b', on_hand: 20, held: 8, placed: 8 },
    ]);
    expect((await holdsOf(order)).filter((x) => x[3] === 'PLACED')).toEqual([
      [1, 'b', 8, 'PLACED'],
      [2, 'a', 1, 'PLACED'],
    ]);

    // Undone: line 1 back at a (3), not held anew (holding the old lines again would prefer b); line 2 untouched.
    const seq = await lastOutboxSeq(h);
    const changed = await restore(amended.previousHoldIds);
    expect(changed.map((x) => [x.lineNumber, x.location.code, x.quantity, x.status]).sort()).toEqual([
      [1, 'a', 3, 'PLACED'],
      [1, 'b', 8, 'RELEASED'],
    ]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 5, held: 3, placed: 3 },
      { code: 'b', on_hand: 20, held: 0, placed: 0 },
    ]);
    const placedNow = (await h.pool.query(`SELECT id::text FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed' ORDER BY id`, [order])).rows.map((r) => r.id);
    expect(placedNow).toEqual([...amended.previousHoldIds].sort((x, y) => Number(x) - Number(y)));
    // One event for the product whose figure moved (25 - 8 back to 25 - 3), none for q.
    expect((await outboxAfter(h, seq)).map((e) => [e.event_key, (e.envelope.payload as any).previousStock, (e.envelope.payload as any).stock])).toEqual([[p.productUuid, 17, 22]]);

    // Again: nothing.
    const seq2 = await lastOutboxSeq(h);
    expect(await restore(amended.previousHoldIds)).toEqual([]);
    expect(await outboxAfter(h, seq2)).toEqual([]);
  });

  it('restoreHolds is refused while stock the order gave up was sold meanwhile (409 naming it, nothing changes)', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 3);
    await setStock(h, team, p.productUuid, b, 10);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 3 }]); // a
    const amended = await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 6 }]); // b
    await hold(randomUUID(), [{ lineNumber: 1, productUuid: p.productUuid, quantity: 2 }]); // a: 2 of the 3 given up
    const seq = await lastOutboxSeq(h);
    expect(await h.problem(ordersService, RESTORE_HOLDS, { orderUuid: order, holdIds: amended.previousHoldIds })).toMatchObject({
      problemType: 'stock-unavailable',
      extensions: { shortages: [{ productUuid: p.productUuid, requested: 3, available: 1 }] },
    });
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 3, held: 2, placed: 2 },
      { code: 'b', on_hand: 10, held: 6, placed: 6 },
    ]);
    expect(await outboxAfter(h, seq)).toEqual([]);
    expect(await h.problem(channelOf(team), RESTORE_HOLDS, { orderUuid: order, holdIds: [] })).toMatchObject({ problemType: 'forbidden' });
  });

  it('concurrent releases of one location release once', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 10);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 7 }]);
    const results = await Promise.all(Array.from({ length: 10 }, () => releaseAt(order, ['a'])));
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 10, held: 0, placed: 0 }]);
  });

  it('only our services may release or reinstate; bad input names the field', async () => {
    const order = randomUUID();
    for (const who of [backOffice(team), channelOf(team)]) {
      expect(await h.problem(who, RELEASE_HOLDS_AT, { orderUuid: order, locationCodes: ['a'] })).toMatchObject({ problemType: 'forbidden' });
      expect(await h.problem(who, REINSTATE_HOLDS, { orderUuid: order, holdIds: ['1'] })).toMatchObject({ problemType: 'forbidden' });
    }
    expect(await h.problem(ordersService, RELEASE_HOLDS_AT, { orderUuid: 'nope', locationCodes: ['a'] })).toMatchObject({
      problemType: 'validation-failed',
      violations: [{ property: 'orderUuid' }],
    });
    expect(await h.problem(ordersService, REINSTATE_HOLDS, { orderUuid: order, holdIds: ['1', 'x', '0', '9223372036854775808'] })).toMatchObject({
      problemType: 'validation-failed',
      violations: [{ property: 'holdIds[1]' }, { property: 'holdIds[2]' }, { property: 'holdIds[3]' }],
    });
  });
});
