import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Identity } from '@pf/platform/identity';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { createLogger } from '@pf/platform/logging';
import { Problem } from '@pf/platform/problems';
import { StockUnavailableError, type StockApi } from '../src/adapters/stock-client';
import { clearOwnStockSteps, lockOwnStockSteps, recordStockStep } from '../src/repositories/stock-step-repository';
import { createJournalPool } from '../src/db';
import { inTransaction } from '../src/use-cases/deps';
import { AMEND_ORDER, CANCEL_ORDER, CONFIRM_ORDER, CREATE_ORDER, createTeam, HISTORY, holdsOf, ORDER, orderInput, PROCESS_NOW, QUEUE_ORDER, startSystem, type OrdersSystem, type TeamFixture } from './harness';

/**
 * A change that called the stock service and whose process ended before it committed or undid the
 * call leaves its journal row; the stock repair puts the order's holds right. The lost change is
 * played here by calling stock as it would have, with the row it would have left.
 */
describe('stock repair of order changes that did not finish', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  const ordersService: Identity = { kind: 'service', service: 'orders' };

  beforeAll(async () => {
    s = await startSystem();
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const number = () => `o-${uniqueSuffix()}`;
  const draft = async (extra: Record<string, unknown> = {}, lines: [string, number][] = [['SKU-A', 2], ['SKU-C', 1]]) =>
    (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), lines, extra) })).createOrder;
  const journalRows = async (uuid: string) => (await s.pool.query('SELECT 1 FROM orders.stock_step WHERE order_uuid = $1', [uuid])).rowCount;
  /** The row a change leaves when its process ends after calling stock, an hour ago. */
  const leftBehind = (uuid: string) =>
    s.pool.query(
      `INSERT INTO orders.stock_step (order_uuid, started_at) VALUES ($1, now() - interval '1 hour')
       ON CONFLICT (order_uuid) DO UPDATE SET started_at = EXCLUDED.started_at`,
      [uuid],
    );
  const placedIds = async (uuid: string) =>
    (await s.pool.query(`SELECT id::text FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed' ORDER BY id`, [uuid])).rows.map((r) => r.id as string);
  const holdAsConfirmWould = (o: any) =>
    s.call('stock', ordersService, `mutation ($input: HoldStockInput!) { holdStock(input: $input) { __typename } }`, {
      input: { teamCode: t.teamCode, orderUuid: o.uuid, lines: o.orderLines.map((l: any) => ({ lineNumber: l.lineNumber, productUuid: l.product.uuid, quantity: l.quantity })) },
    });
  /** A stock API whose every call fails as "not called here" (tests replace the ones they use). */
  const unusedStock = (): StockApi => {
    const unused = async (): Promise<never> => {
      throw new Error('not called here');
    };
    return {
      holdStock: unused, releaseHolds: unused, consumeHolds: unused, returnHolds: unused, reinstateHolds: unused, restoreHolds: unused, reconsumeHolds: unused, unconsumeHolds: unused, orderHolds: unused, fenceOrderHolds: unused,
      // The same fake, whatever the token (`this`: the object the test built, overrides included).
      fenced() {
        return this;
      },
    };
  };
  const repairer = () => s.startOrders({ ORDERS_STOCK_REPAIR_INTERVAL_MS: '100', ORDERS_STOCK_REPAIR_AFTER_MS: '1000' });
  /** Runs the stock repair until the order's row is gone. */
  async function repairUntilDone(uuid: string): Promise<void> {
    const w = await repairer();
    try {
      await eventually(async () => ((await journalRows(uuid)) === 0 ? true : undefined));
    } finally {
      await w.stop();
    }
  }
  /** On hand of the team's every product and warehouse. */
  const onHand = async () =>
    (await s.pool.query<{ on_hand: number }>(`SELECT sum(on_hand)::int AS on_hand FROM stock.stock_level WHERE team_code = $1`, [t.teamCode])).rows[0]!.on_hand;

  it('changes that finish leave no journal row, committed or refused', async () => {
    const o = await draft();
    await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: o.uuid });
    expect(await journalRows(o.uuid)).toBe(0);
    const short = await s.gql<any>(s.urls.orders, t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-D', 6]], { reserve: true }) });
    expect(short.errors?.[0]?.extensions?.problem?.problemType).toBe('stock-unavailable');
    expect((await s.pool.query('SELECT count(*)::int AS n FROM orders.stock_step')).rows[0].n).toBe(0);
  });

  it('a stock step that ends without a definite answer (a time-out) keeps its journal row for the repair; stock\'s refusal does not', async () => {
    const refusing = (failure: Error): StockApi => {
      const fail = async (): Promise<never> => {
        throw failure;
      };
      return {
        holdStock: fail, releaseHolds: fail, consumeHolds: fail, returnHolds: fail, reinstateHolds: fail, restoreHolds: fail, reconsumeHolds: fail, unconsumeHolds: fail, orderHolds: fail, fenceOrderHolds: fail,
        fenced() {
          return this;
        },
      };
    };
    const logger = createLogger('stock-step-test', 'silent');
    for (const [failure, rowsLeft] of [
      // stock may have released the holds after the client gave up: nobody knows, the repair finds out
      [new StockUnavailableError('The stock service did not answer: timed out'), 1],
      // stock said no: nothing was done, nothing to repair
      [new Problem('stock-unavailable', { detail: 'short' }), 0],
      // no connection could be made: the request never left, nothing was done
      [new StockUnavailableError('The stock service did not answer: connect ECONNREFUSED 127.0.0.1:9', { nothingDone: true }), 0],
      // a later change fenced this one out: the row is the stock repair's now (that change's repair may have failed)
      [new StockUnavailableError('The stock service refused a fenced-out change', { fencedOut: true }), 1],
    ] as const) {
      const uuid = randomUUID();
      try {
        await expect(inTransaction({ pool: s.pool, journalPool: s.pool, logger, stock: refusing(failure) }, (_tx, unit) => unit.stock.releaseHolds(uuid))).rejects.toBe(failure);
        expect({ failure: failure.name, rows: await journalRows(uuid) }).toEqual({ failure: failure.name, rows: rowsLeft });
      } finally {
        await s.pool.query('DELETE FROM orders.stock_step WHERE order_uuid = $1', [uuid]);
      }
    }
  });

  it('a failed change is undone while it still holds the order: a change waiting for the order starts after the compensations', async () => {
    const o = await draft();
    const seen: string[] = [];
    const stock: StockApi = { ...unusedStock(), releaseHolds: async () => [] };
    const logger = createLogger('stock-step-test', 'silent');
    const lock = (tx: { query: (text: string, values: unknown[]) => Promise<unknown> }) => tx.query('SELECT 1 FROM orders.orders WHERE uuid = $1 FOR UPDATE', [o.uuid]);
    let locked!: () => void;
    const firstHasLock = new Promise<void>((resolve) => (locked = resolve));
    const failing = inTransaction({ pool: s.pool, journalPool: s.pool, logger, stock }, async (tx, unit) => {
      await lock(tx);
      await unit.stock.releaseHolds(o.uuid);
      unit.onRollback(async () => {
        await new Promise((r) => setTimeout(r, 300));
        seen.push('first undone');
      });
      locked();
      throw new Error('the first change fails');
    });
    await firstHasLock;
    const waiting = inTransaction({ pool: s.pool, journalPool: s.pool, logger, stock }, async (tx) => {
      await lock(tx);
      seen.push(`second has the order (journal rows: ${await journalRows(o.uuid)})`);
    });
    await expect(failing).rejects.toThrow('the first change fails');
    await waiting;
    expect(seen).toEqual(['first undone', 'second has the order (journal rows: 0)']);
  });

  it("a change that fails after later statements is undone and its journal row cleared at once: the row's delete goes only with COMMIT, so the change never holds the row it clears", async () => {
    const o = await draft();
    const stock: StockApi = { ...unusedStock(), releaseHolds: async () => [] };
    const journalPool = createJournalPool(s.db.url, undefined, 300);
    let undone = false;
    try {
      const failing = inTransaction({ pool: s.pool, journalPool, logger: createLogger('stock-step-test', 'silent'), stock }, async (tx, unit) => {
        await tx.query('SELECT 1 FROM orders.orders WHERE uuid = $1 FOR UPDATE', [o.uuid]);
        await unit.stock.releaseHolds(o.uuid);
        unit.onRollback(async () => void (undone = true));
        // A later statement of the change (the row's delete does not go out with it).
        await tx.query('SELECT 1', []);
        throw new Error('a bug after the delete went out');
      });
      await expect(failing).rejects.toThrow('a bug after the delete went out');
    } finally {
      await journalPool.end();
    }
    expect(undone).toBe(true);
    // Cleared by the undo (a lock wait here would have run into the journal pool's bound and left it).
    expect(await journalRows(o.uuid)).toBe(0);
  });

  it('a journal write that fails leaves its connection fit for the next change', async () => {
    // One connection, so the next write gets the very connection the failed one used.
    const one = new pg.Pool({ connectionString: s.pool.options.connectionString, max: 1, options: '-c lock_timeout=200' });
    const holder = await s.pool.connect();
    const [busy, free] = [randomUUID(), randomUUID()];
    try {
      await holder.query('BEGIN');
      await holder.query('INSERT INTO orders.stock_step (order_uuid) VALUES ($1)', [busy]);
      // Waits on the uncommitted row, then gives up.
      await expect(recordStockStep(one, busy, randomUUID())).rejects.toMatchObject({ code: '55P03' });
      await holder.query('ROLLBACK');
      expect(await recordStockStep(one, free, randomUUID())).toMatch(/^[1-9][0-9]*$/);
      expect(await recordStockStep(one, free, randomUUID())).toBeNull();
    } finally {
      holder.release();
      await one.end();
      await s.pool.query('DELETE FROM orders.stock_step WHERE order_uuid = $1', [free]);
    }
  });

  it("a change counts and clears only its own journal rows: another change's row of the order stays, and an in-flight delete is waited for", async () => {
    const [order, mine, theirs] = [randomUUID(), randomUUID(), randomUUID()];
    try {
      expect(await recordStockStep(s.pool, order, theirs)).toMatch(/^[1-9][0-9]*$/);
      // Another change's row: not this change's to count, nor to delete.
      expect(await lockOwnStockSteps(s.pool, [order], mine)).toBe(0);
      await clearOwnStockSteps(s.pool, [order], mine);
      expect(await journalRows(order)).toBe(1);
      expect(await lockOwnStockSteps(s.pool, [order], theirs)).toBe(1);

      // The owner's COMMIT in flight (its delete done, not yet committed): counting waits, then sees it gone.
      const owner = await s.pool.connect();
      try {
        await owner.query('BEGIN');
        await owner.query('DELETE FROM orders.stock_step WHERE order_uuid = $1', [order]);
        const counted = lockOwnStockSteps(s.pool, [order], theirs);
        await new Promise((r) => setTimeout(r, 100));
        await owner.query('COMMIT');
        expect(await counted).toBe(0);
      } finally {
        owner.release();
      }
    } finally {
      await s.pool.query('DELETE FROM orders.stock_step WHERE order_uuid = $1', [order]);
    }
  });

  it('a confirmation lost after stock held its lines: the draft holds nothing again', async () => {
    const o = await draft();
    await holdAsConfirmWould(o);
    await leftBehind(o.uuid);
    expect((await placedIds(o.uuid)).length).toBeGreaterThan(0);
    const w = await repairer();
    try {
      await eventually(async () => ((await placedIds(o.uuid)).length === 0 && (await journalRows(o.uuid)) === 0) || undefined);
    } finally {
      await w.stop();
    }
  });

  it('a draft processed now whose process ended after stock consumed its holds: the stock is back on hand, nothing stays consumed, nothing held', async () => {
    const o = await draft();
    const before = await onHand();
    await holdAsConfirmWould(o);
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { consumeHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await leftBehind(o.uuid);
    expect(await onHand()).toBe(before - 3);
    await repairUntilDone(o.uuid);
    expect(await onHand()).toBe(before);
    const statuses = (await s.pool.query(`SELECT status FROM stock.stock_hold WHERE order_uuid = $1 ORDER BY id`, [o.uuid])).rows.map((r) => r.status);
    // Placed again (exactly those), then released: the draft holds nothing.
    expect(statuses).toEqual(['released', 'released']);
  });

  it("stock a failed fulfilment left consumed before the interrupted change began is not given back by the repair", async () => {
    const o = await draft();
    // Consumed an hour ago (as a fulfilment that then failed): the order holds nothing now.
    await holdAsConfirmWould(o);
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { consumeHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await s.pool.query(`UPDATE stock.stock_hold SET consumed_at = now() - interval '1 hour' WHERE order_uuid = $1`, [o.uuid]);
    const before = await onHand();
    // A later change of the order was interrupted (its row began a minute ago).
    await s.pool.query(`INSERT INTO orders.stock_step (order_uuid, started_at) VALUES ($1, now() - interval '1 minute')`, [o.uuid]);
    await repairUntilDone(o.uuid);
    expect(await onHand()).toBe(before);
    const statuses = (await s.pool.query(`SELECT status FROM stock.stock_hold WHERE order_uuid = $1 ORDER BY id`, [o.uuid])).rows.map((r) => r.status);
    expect(statuses).toEqual(['consumed', 'consumed']);
  });

  it('a cancellation lost after stock released the holds: the queued order holds the same holds again, the lost change fenced out', async () => {
    const o = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: (await draft()).uuid })).confirmOrder;
    const before = await placedIds(o.uuid);
    expect(before.length).toBeGreaterThan(0);
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { releaseHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await leftBehind(o.uuid);
    const lost = (await s.pool.query<{ fence: string }>('SELECT fence::text AS fence FROM orders.stock_step WHERE order_uuid = $1', [o.uuid])).rows[0]!.fence;
    expect(await placedIds(o.uuid)).toEqual([]);
    const w = await repairer();
    try {
      await eventually(async () => ((await journalRows(o.uuid)) === 0 ? true : undefined));
    } finally {
      await w.stop();
    }
    expect(await placedIds(o.uuid)).toEqual(before);
    // The repair raised the order's fence above the lost change's token: its late release is refused.
    const fence = (await s.pool.query<{ fence: string }>('SELECT fence::text AS fence FROM stock.order_fence WHERE order_uuid = $1', [o.uuid])).rows[0]?.fence;
    expect(BigInt(fence!)).toBeGreaterThan(BigInt(lost));
    const late = await s.gql<any>(s.urls.stock, ordersService, `mutation ($uuid: ID!, $fence: String) { releaseHolds(orderUuid: $uuid, fence: $fence) { id } }`, { uuid: o.uuid, fence: lost });
    expect(late.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'conflict', extensions: { fenced: true } });
    expect(await placedIds(o.uuid)).toEqual(before);
  });

  it('a cancellation lost after stock released the holds, and the stock sold meanwhile: the order goes to holding without fulfilments, nothing is held twice', async () => {
    const o = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: (await draft({}, [['SKU-D', 3]])).uuid })).confirmOrder;
    expect(o.fulfilments).toHaveLength(1);
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { releaseHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await leftBehind(o.uuid);
    // Another order takes 4 of SKU-D's 5 meanwhile: the 3 released cannot be held again.
    const rival = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: (await draft({}, [['SKU-D', 4]])).uuid })).confirmOrder;
    // A change of the order meanwhile cannot build on it: retry shortly, the order untouched.
    const early = await s.gql<any>(s.urls.orders, t.backOffice, PROCESS_NOW, { uuid: o.uuid });
    expect(early.errors?.[0]?.extensions?.problem?.problemType).toBe('unavailable');
    expect(await journalRows(o.uuid)).toBe(1);
    const w = await repairer();
    try {
      await eventually(async () => ((await journalRows(o.uuid)) === 0 ? true : undefined));
    } finally {
      await w.stop();
    }
    const after = (await s.ok<any>(t.backOffice, ORDER, { uuid: o.uuid })).order;
    expect(after).toMatchObject({ status: 'holding', confirmedAt: o.confirmedAt, stockHeld: false, fulfilments: [] });
    expect((await s.ok<any>(t.backOffice, HISTORY, { uuid: o.uuid })).order.statusHistory.at(-1)).toMatchObject({ from: 'queued', to: 'holding', actor: 'stock-repair' });
    expect(await placedIds(o.uuid)).toEqual([]);
    // It follows stock again: 3 wanted, 1 left.
    await eventually(async () => ((await s.ok<any>(t.backOffice, ORDER, { uuid: o.uuid })).order.fulfillableStatus === 'partially-fulfillable' ? true : undefined));
    const level = (await s.pool.query(`SELECT sum(s.held)::int AS held, sum(s.on_hand)::int AS on_hand FROM stock.stock_level s JOIN stock.product p ON p.uuid = s.product_uuid WHERE p.sku = 'SKU-D' AND p.team_code = $1`, [t.teamCode])).rows[0];
    expect(level).toEqual({ held: 4, on_hand: 5 });
    // Queued again, it is told what is short; once the rival lets go, it holds anew.
    const short = await s.gql<any>(s.urls.orders, t.backOffice, QUEUE_ORDER, { uuid: o.uuid });
    expect(short.errors?.[0]?.extensions?.problem?.problemType).toBe('stock-unavailable');
    await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: rival.uuid });
    expect((await s.ok<any>(t.backOffice, QUEUE_ORDER, { uuid: o.uuid })).queueOrder).toMatchObject({ status: 'queued', stockHeld: true });
    await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid });
  });

  it('an amendment that meets the row of a lost change whose stock is gone is refused as unexpected-error (worth retrying), not unavailable', async () => {
    const u = await createTeam(s, `u${uniqueSuffix()}`, { stock: { 'SKU-D': { leeds: 5 } } });
    const create = async (lines: [string, number][]) => (await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(number(), lines) })).createOrder;
    const o = (await s.ok<any>(u.shop, CONFIRM_ORDER, { uuid: (await create([['SKU-D', 3]])).uuid })).confirmOrder;
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { releaseHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await leftBehind(o.uuid);
    await s.ok<any>(u.shop, CONFIRM_ORDER, { uuid: (await create([['SKU-D', 4]])).uuid });
    const res = await s.gql<any>(s.urls.orders, u.shop, AMEND_ORDER, { uuid: o.uuid, input: { orderLines: [{ lineNumber: 1, product: { sku: 'SKU-D' }, quantity: 2 }] } });
    const problem = res.errors?.[0]?.extensions?.problem;
    expect(problem).toMatchObject({ problemType: 'amendment-refused', extensions: { reason: 'unexpected-error' } });
    expect(problem.detail).toMatch(/being put right/);
  });

  it('a change that meets the row of a lost one puts the stock right first: an order sent after its cancellation was lost consumes its holds', async () => {
    const o = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: (await draft()).uuid })).confirmOrder;
    const before = await placedIds(o.uuid);
    await s.call('stock', ordersService, `mutation ($uuid: ID!) { releaseHolds(orderUuid: $uuid) { id } }`, { uuid: o.uuid });
    await leftBehind(o.uuid);
    const sent = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: o.uuid })).processOrderNow;
    expect(sent.status).toBe('processing');
    const consumed = (await s.pool.query(`SELECT id::text FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'consumed' ORDER BY id`, [o.uuid])).rows.map((r) => r.id);
    expect(consumed).toEqual(before);
    expect(await journalRows(o.uuid)).toBe(0);
  });

  it("a change that meets the row of a change that may still be running fences it out in stock and puts the order right at once; that change's late calls are refused", async () => {
    const o = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: (await draft()).uuid })).confirmOrder;
    const held = await placedIds(o.uuid);
    expect(held.length).toBeGreaterThan(0);
    // An amendment whose hold timed out a moment ago: its call may still reach stock, with its row's token.
    const lost = (await s.pool.query<{ fence: string }>('INSERT INTO orders.stock_step (order_uuid) VALUES ($1) RETURNING fence::text AS fence', [o.uuid])).rows[0]!.fence;
    const lines = o.orderLines.map((l: any) => ({ lineNumber: l.lineNumber, productUuid: l.product.uuid, quantity: l.quantity + 1 }));
    const lateHold = (fence: string | null) =>
      s.gql<any>(s.urls.stock, ordersService, `mutation ($input: HoldStockInput!) { holdStock(input: $input) { __typename } }`, { input: { teamCode: t.teamCode, orderUuid: o.uuid, lines, fence } });

    // The cancellation does not wait: the order's holds are checked (and the lost change shut out), then released.
    expect((await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid })).cancelOrder.status).toBe('cancelled');
    expect(await placedIds(o.uuid)).toEqual([]);
    expect(await journalRows(o.uuid)).toBe(0);
    const fence = (await s.pool.query<{ fence: string }>('SELECT fence::text AS fence FROM stock.order_fence WHERE order_uuid = $1', [o.uuid])).rows[0]?.fence;
    expect(BigInt(fence!)).toBeGreaterThan(BigInt(lost));

    // The lost change's hold arrives now: refused, nothing held for the cancelled order; so is a call without a token.
    for (const token of [lost, null]) {
      const late = await lateHold(token);
      expect(late.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'conflict', extensions: { fenced: true } });
    }
    expect(await placedIds(o.uuid)).toEqual([]);
  });

  it('a later change does not take the row away: a draft cancelled after its confirmation was lost still gets its holds released', async () => {
    const o = await draft();
    await holdAsConfirmWould(o);
    await leftBehind(o.uuid);
    expect((await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: o.uuid })).cancelOrder.status).toBe('cancelled');
    expect(await journalRows(o.uuid)).toBe(1);
    expect((await holdsOf(s, o.uuid)).length).toBeGreaterThan(0);
    const w = await repairer();
    try {
      await eventually(async () => ((await placedIds(o.uuid)).length === 0 && (await journalRows(o.uuid)) === 0) || undefined);
    } finally {
      await w.stop();
    }
  });
});
