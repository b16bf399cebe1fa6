import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { ProductState } from '@pf/platform/events/catalog';
import { StockLevelChanged } from '@pf/platform/events/stock';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { createTestDatabase } from '@pf/platform/testing/infra';
import { STOCK_MIGRATIONS_DIR } from '../src';
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
  RECONSUME_HOLDS,
  RELEASE_HOLDS,
  RETURN_HOLDS,
  UNCONSUME_HOLDS,
  setStock,
  startStock,
  warehouse,
  type StockHarness,
} from './harness';

describe('consumed stock given back (returnHolds, reconsumeHolds)', () => {
  let h: StockHarness;
  const team = 'ret';
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

  const hold = async (orderUuid: string, lines: { lineNumber: number; productUuid: string; quantity: number }[]) => {
    const { holdStock } = await h.ok(ordersService, HOLD_STOCK, { input: { teamCode: team, orderUuid, lines } });
    expect(holdStock.__typename).toBe('StockHeld');
    return holdStock;
  };
  const consume = (orderUuid: string, locationCodes: string[] | null = null) => h.ok(ordersService, CONSUME_HOLDS, { orderUuid, locationCodes });
  const giveBack = async (orderUuid: string, locationCodes: string[] | null = null) =>
    (await h.ok(ordersService, RETURN_HOLDS, { orderUuid, locationCodes })).returnHolds as any[];
  const undo = async (orderUuid: string, holdIds: string[]) => (await h.ok(ordersService, RECONSUME_HOLDS, { orderUuid, holdIds })).reconsumeHolds as any[];

  /** A product with 6 on hand in warehouse a, held by two orders: 2 for `order`, 1 for `other`. */
  async function twoOrdersHolding() {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 6);
    const order = randomUUID();
    const other = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 2 }]);
    await hold(other, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]);
    return { p, order, other };
  }

  async function rows(productUuid: string) {
    const { rows } = await h.pool.query<{ code: string; on_hand: number; held: number }>(
      `SELECT w.code, s.on_hand, s.held FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id WHERE s.product_uuid = $1 ORDER BY w.code`,
      [productUuid],
    );
    return rows;
  }
  // By line, then location code (the service lists a line's holds by warehouse id).
  const holdsOf = async (orderUuid: string) =>
    ((await h.ok(backOffice(team), ORDER_HOLDS, { orderUuid })).orderHolds as any[])
      .map((x) => [x.lineNumber, x.location.code, x.quantity, x.status])
      .sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
  const figure = async (p: ProductState) => (await feedOf(h, channelOf(team))).get(p.productUuid)?.stock;
  const adjustments = async (p: ProductState, first = 10) =>
    (
      await h.ok(backOffice(team), `query ($p: ID!, $n: Int) { stockAdjustments(productUuid: $p, first: $n) { kind delta onHandAfter reason actor warehouse { code } } }`, {
        p: p.productUuid,
        n: first,
      })
    ).stockAdjustments as any[];

  it('gives an order\'s consumed stock back per supplier location: on hand up, held untouched, one event per product, RETURN logged; returning again changes nothing; other orders\' holds untouched', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 3);
    await setStock(h, team, p.productUuid, b, 4);
    const order = randomUUID();
    const placedOther = randomUUID();
    const consumedOther = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 5 }]); // b 4 + a 1
    await hold(placedOther, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]); // a
    await hold(consumedOther, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 1 }]); // a
    await consume(order);
    await consume(consumedOther);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 1, held: 1 },
      { code: 'b', on_hand: 0, held: 0 },
    ]);
    expect(await figure(p)).toBe(0);

    const seq = await lastOutboxSeq(h);
    const fromB = await giveBack(order, ['b']);
    expect(fromB).toEqual([
      { id: expect.stringMatching(/^\d+$/), lineNumber: 1, productUuid: p.productUuid, quantity: 4, taken: 4, status: 'RETURNED', consumedAt: expect.any(String), returnedAt: expect.any(String), location: { code: 'b' } },
    ]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 1, held: 1 },
      { code: 'b', on_hand: 4, held: 0 },
    ]);
    expect(await figure(p)).toBe(4);
    const events = await outboxAfter(h, seq);
    expect(events.map((e) => [e.topic, e.event_key, e.envelope.type])).toEqual([[StockLevelChanged.topic, p.productUuid, 'stock-level.changed']]);
    expect(events[0]!.envelope.payload).toEqual({ teamCode: team, productUuid: p.productUuid, sku: p.sku, stock: 4, previousStock: 0, changedAt: fromB[0].returnedAt });
    expect((await adjustments(p, 1))[0]).toEqual({
      kind: 'RETURN',
      delta: 4,
      onHandAfter: 4,
      reason: `Order ${order} line 1 not dispatched: back on hand`,
      actor: 'service:orders',
      warehouse: { code: 'b' },
    });

    // Again: nothing to give back, no event, no adjustment.
    const seq2 = await lastOutboxSeq(h);
    const logged = (await adjustments(p, 100)).length;
    expect(await giveBack(order, ['b'])).toEqual([]);
    expect(await outboxAfter(h, seq2)).toEqual([]);
    expect((await adjustments(p, 100)).length).toBe(logged);

    // The rest of the order (all locations): a's one unit. The other orders' holds stay as they were.
    expect((await giveBack(order)).map((x) => [x.location.code, x.taken, x.status])).toEqual([['a', 1, 'RETURNED']]);
    expect(await rows(p.productUuid)).toEqual([
      { code: 'a', on_hand: 2, held: 1 },
      { code: 'b', on_hand: 4, held: 0 },
    ]);
    expect(await figure(p)).toBe(5);
    expect(await giveBack(order)).toEqual([]);
    expect(await holdsOf(order)).toEqual([
      [1, 'a', 1, 'RETURNED'],
      [1, 'b', 4, 'RETURNED'],
    ]);
    expect(await holdsOf(placedOther)).toEqual([[1, 'a', 1, 'PLACED']]);
    expect(await holdsOf(consumedOther)).toEqual([[1, 'a', 1, 'CONSUMED']]);
    // A returned hold is neither placed nor consumed: releasing or consuming the order does nothing.
    expect(await h.ok(ordersService, RELEASE_HOLDS, { orderUuid: order })).toEqual({ releaseHolds: [] });
    expect(await consume(order)).toEqual({ consumeHolds: [] });
  });

  it('gives back what consuming took, not more: a count set below what was held', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 5);
    const order = randomUUID();
    await hold(order, [
      { lineNumber: 1, productUuid: p.productUuid, quantity: 3 },
      { lineNumber: 2, productUuid: p.productUuid, quantity: 2 },
    ]);
    await setStock(h, team, p.productUuid, a, 4); // one unit broke on the shelf
    await consume(order);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 0, held: 0 }]);
    const back = await giveBack(order);
    expect(back.map((x) => [x.lineNumber, x.quantity, x.taken])).toEqual([
      [1, 3, 3],
      [2, 2, 1],
    ]);
    // Back to the count, not to the 5 first held.
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 4, held: 0 }]);
    expect(await figure(p)).toBe(4);
  });

  it('print on demand took nothing: nothing to return, the hold stays consumed', async () => {
    const p = await h.product(team, { podEnabled: true, podApproved: true });
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 50 }]);
    await consume(order);
    const seq = await lastOutboxSeq(h);
    expect(await giveBack(order, ['print-on-demand'])).toEqual([]);
    expect(await giveBack(order)).toEqual([]);
    expect(await holdsOf(order)).toEqual([[1, 'print-on-demand', 50, 'CONSUMED']]);
    expect(await outboxAfter(h, seq)).toEqual([]);
  });

  it('reconsumeHolds undoes a return whose order change did not commit: the named holds are consumed again, once', async () => {
    const { p, order, other } = await twoOrdersHolding();
    await consume(order);
    await consume(other);
    const back = await giveBack(order);
    const otherBack = await giveBack(other);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 6, held: 0 }]);

    const seq = await lastOutboxSeq(h);
    // Another order's hold id named with this order: left alone.
    const undone = await undo(order, [back[0].id, otherBack[0].id]);
    expect(undone).toEqual([{ id: back[0].id, lineNumber: 1, quantity: 2, taken: 2, status: 'CONSUMED', consumedAt: expect.any(String), returnedAt: null, location: { code: 'a' } }]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 4, held: 0 }]);
    expect((await outboxAfter(h, seq)).map((e) => e.envelope.payload)).toEqual([expect.objectContaining({ previousStock: 6, stock: 4 })]);
    expect((await adjustments(p, 1))[0]).toMatchObject({ kind: 'CONSUME', delta: -2, onHandAfter: 4, reason: `Order ${order} line 1 sent (return undone)` });
    expect(await holdsOf(other)).toEqual([[1, 'a', 1, 'RETURNED']]);

    // Undoing twice changes nothing; the order may be returned again later.
    expect(await undo(order, [back[0].id])).toEqual([]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 4, held: 0 }]);
    expect((await giveBack(order)).map((x) => x.taken)).toEqual([2]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 6, held: 0 }]);
  });

  it('unconsumeHolds undoes a sending whose order change did not commit: the named holds are placed again, once', async () => {
    const { p, order, other } = await twoOrdersHolding();
    const figureBefore = await figure(p);
    const sent = (await consume(order)).consumeHolds as any[];
    const otherSent = (await consume(other)).consumeHolds as any[];
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 3, held: 0 }]);

    const seq = await lastOutboxSeq(h);
    // Another order's hold id named with this order: left alone.
    const undone = (await h.ok(ordersService, UNCONSUME_HOLDS, { orderUuid: order, holdIds: [sent[0].id, otherSent[0].id] })).unconsumeHolds;
    expect(undone).toEqual([{ id: sent[0].id, lineNumber: 1, quantity: 2, taken: 0, status: 'PLACED', consumedAt: null, returnedAt: null, location: { code: 'a' } }]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 5, held: 2 }]);
    // On hand and held rose together: the free stock, and so the figure, did not move.
    expect(await figure(p)).toBe(figureBefore);
    expect(await outboxAfter(h, seq)).toEqual([]);
    expect((await adjustments(p, 1))[0]).toMatchObject({ kind: 'RETURN', delta: 2, onHandAfter: 5, reason: `Order ${order} line 1 not sent after all (sending undone)` });
    expect(await holdsOf(order)).toEqual([[1, 'a', 2, 'PLACED']]);
    expect(await holdsOf(other)).toEqual([[1, 'a', 1, 'CONSUMED']]);

    // Undoing twice changes nothing; the order may be sent again later, and takes its stock once.
    expect((await h.ok(ordersService, UNCONSUME_HOLDS, { orderUuid: order, holdIds: [sent[0].id] })).unconsumeHolds).toEqual([]);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 5, held: 2 }]);
    await consume(order);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 3, held: 0 }]);
  });

  it('concurrent returns of one order give its stock back once', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 10);
    const order = randomUUID();
    await hold(order, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 7 }]);
    await consume(order);
    const results = await Promise.all(Array.from({ length: 10 }, () => giveBack(order)));
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await rows(p.productUuid)).toEqual([{ code: 'a', on_hand: 10, held: 0 }]);
  });

  it('only our services may return or undo; bad input names the field', async () => {
    const order = randomUUID();
    for (const who of [backOffice(team), channelOf(team)]) {
      expect(await h.problem(who, RETURN_HOLDS, { orderUuid: order })).toMatchObject({ problemType: 'forbidden' });
      expect(await h.problem(who, RECONSUME_HOLDS, { orderUuid: order, holdIds: ['1'] })).toMatchObject({ problemType: 'forbidden' });
    }
    expect(await h.problem(ordersService, RETURN_HOLDS, { orderUuid: 'nope' })).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'orderUuid' }] });
    expect(await h.problem(ordersService, RECONSUME_HOLDS, { orderUuid: order, holdIds: ['1', 'x', '-2'] })).toMatchObject({
      problemType: 'validation-failed',
      violations: [{ property: 'holdIds[1]' }, { property: 'holdIds[2]' }],
    });
  });
});

describe('migration 0003: holds consumed before it know what they took', () => {
  it('fills `taken` from each consumed hold\'s consume adjustment (same order line, warehouse and instant)', async () => {
    // The database as it was before 0003: the first two migrations only.
    const before = await mkdtemp(path.join(os.tmpdir(), 'stock-migrations-'));
    for (const f of ['0001_stock.sql', '0002_stock_level_figure_index.sql']) await copyFile(path.join(STOCK_MIGRATIONS_DIR, f), path.join(before, f));
    const db = await createTestDatabase([{ schema: 'stock', migrationsDir: before }]);
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const product = randomUUID();
      const wh = randomUUID();
      const order = randomUUID();
      const at = new Date('2026-11-01T10:00:00.123Z');
      await pool.query(`INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, version) VALUES ($1, 'm', 'S', 'active', true, true, 1)`, [product]);
      await pool.query(`INSERT INTO stock.warehouse (id, team_code, code, name, country_code) VALUES ($1, 'm', 'a', 'A', 'GB')`, [wh]);
      await pool.query(`INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand) VALUES ($1, $2, 'm', 0)`, [product, wh]);
      const insertHold = async (line: number, warehouseId: string | null, quantity: number, status: string, consumedAt: Date | null) =>
        (
          await pool.query<{ id: string }>(
            `INSERT INTO stock.stock_hold (team_code, order_uuid, line_number, product_uuid, warehouse_id, quantity, status, consumed_at)
             VALUES ('m', $1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
            [order, line, product, warehouseId, quantity, status, consumedAt],
          )
        ).rows[0]!.id;
      // Line 1 took all 3; line 2 found only 1 of 2 (a count below what was held); line 3 is printed on demand; line 4 is still placed.
      const full = await insertHold(1, wh, 3, 'consumed', at);
      const short = await insertHold(2, wh, 2, 'consumed', at);
      const pod = await insertHold(3, null, 9, 'consumed', at);
      const placed = await insertHold(4, wh, 1, 'placed', null);
      for (const [line, delta] of [
        [1, -3],
        [2, -1],
      ] as const) {
        await pool.query(
          `INSERT INTO stock.stock_adjustment (team_code, product_uuid, warehouse_id, kind, delta, on_hand_after, reason, actor, at)
           VALUES ('m', $1, $2, 'consume', $3, 0, $4, 'service:orders', $5)`,
          [product, wh, delta, `Order ${order} line ${line} sent`, at],
        );
      }
      // Another consumption of the same line at another instant (sent, back to holding, sent again) does not count.
      await pool.query(
        `INSERT INTO stock.stock_adjustment (team_code, product_uuid, warehouse_id, kind, delta, on_hand_after, reason, actor, at)
         VALUES ('m', $1, $2, 'consume', -3, 0, $3, 'service:orders', $4)`,
        [product, wh, `Order ${order} line 1 sent`, new Date(at.getTime() - 60_000)],
      );

      const result = await migrate({ connectionString: db.url, schema: 'stock', sources: serviceMigrationSources(STOCK_MIGRATIONS_DIR) });
      expect(result.applied).toEqual(['service/0003_hold_returns.sql', 'service/0004_expect_count.sql', 'service/0005_order_fence.sql']);
      const { rows } = await pool.query<{ id: string; taken: number; returned_at: Date | null }>('SELECT id::text, taken, returned_at FROM stock.stock_hold ORDER BY id');
      expect(rows).toEqual([
        { id: full, taken: 3, returned_at: null },
        { id: short, taken: 1, returned_at: null },
        { id: pod, taken: 0, returned_at: null },
        { id: placed, taken: 0, returned_at: null },
      ]);
      // The new rules hold: a placed hold cannot claim to have taken stock; `return` is a kind.
      await expect(pool.query('UPDATE stock.stock_hold SET taken = 1 WHERE id = $1', [placed])).rejects.toThrow(/stock_hold_taken/);
      await expect(pool.query(`UPDATE stock.stock_hold SET status = 'returned' WHERE id = $1`, [full])).rejects.toThrow(/stock_hold_status_times/);
    } finally {
      await pool.end();
      await db.drop();
      await rm(before, { recursive: true, force: true });
    }
  });
});
