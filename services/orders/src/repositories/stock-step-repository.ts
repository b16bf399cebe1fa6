import type pg from 'pg';
import { queryBatch, type BatchStatement } from '@pf/platform/db/batch';
import { withClient } from '@pf/platform/db/pool';
import { statement } from '@pf/platform/db/statement';
import type { Sql, Tx } from './order-repository';

/**
 * The stock-step journal (migration 0004): an order's row says a change of it has called the stock
 * service and not committed. Recording answers whether this change wrote the row: one left by a
 * change that did not finish is not this change's to delete (the repair compares holds with the
 * order as committed, whatever committed since). Written on a connection of its own, committed
 * before the call; its commit need not wait for the WAL flush: what it guards against is this
 * process ending, and a PostgreSQL crash ends the change's transaction too (the repair then finds
 * nothing to do, or a leftover hold of a call made in the flush's last instant: see docs/orders.md).
 * `changeId` names this attempt of the change: it clears only its own row (clearOwnStockSteps).
 * The answer is the row's fence token (migration 0008), which the change sends with each of its
 * stock calls for the order; null when a row was there already, left by a change that did not
 * finish (it stays for the repair).
 */
export function recordStockStep(pool: pg.Pool, orderUuid: string, changeId: string): Promise<string | null> {
  return withClient(pool, async (client, discard) => {
    try {
      const [, , recorded] = await queryBatch(client, [BEGIN, RELAXED_COMMIT, RECORD_STOCK_STEP([orderUuid, changeId]), COMMIT]);
      return (recorded!.rows[0] as { fence: string } | undefined)?.fence ?? null;
    } catch (err) {
      // A failed statement leaves the transaction open and aborted: not to be given back so.
      await client.query('ROLLBACK').catch(discard);
      throw err;
    }
  });
}

const BEGIN: BatchStatement = { text: 'BEGIN' };
const COMMIT: BatchStatement = { text: 'COMMIT' };
const RELAXED_COMMIT: BatchStatement = { name: 'orders.relaxed-commit', text: "SELECT set_config('synchronous_commit', 'off', true)" };
const RECORD_STOCK_STEP = statement(
  'orders',
  `INSERT INTO orders.stock_step (order_uuid, change_id) VALUES ($1::uuid, $2::uuid) ON CONFLICT (order_uuid) DO NOTHING RETURNING fence::text AS fence`,
);

/**
 * A fence token for a repair of an order's stock (the stock_step rows' sequence): above every
 * token handed out before, so raising the order's fence to it shuts out every earlier change.
 */
export async function nextStockFence(db: Sql): Promise<string> {
  const { rows } = await db.query<{ fence: string }>(`SELECT nextval('orders.stock_fence')::text AS fence`);
  return rows[0]!.fence;
}

const CLEAR_STOCK_STEP = statement('orders', `DELETE FROM orders.stock_step WHERE order_uuid = $1::uuid`);
const CLEAR_OWN_STOCK_STEP = statement('orders', `DELETE FROM orders.stock_step WHERE order_uuid = $1::uuid AND change_id = $2::uuid`);

/**
 * Deletes this change's row of the order with its COMMIT: committed, the change needs no repair.
 * Only with COMMIT: sent earlier, the transaction would hold the row that undoing the change
 * clears on the journal's own connection.
 */
export function clearOwnStockStepWithCommit(tx: Tx, orderUuid: string, changeId: string): void {
  tx.deferToCommit(CLEAR_OWN_STOCK_STEP([orderUuid, changeId]));
}

/** Deletes the order's row, whichever change left it, with the repair's COMMIT. */
export function clearStockStepWithCommit(tx: Tx, orderUuid: string): void {
  tx.defer(CLEAR_STOCK_STEP([orderUuid]));
}

/** Deletes the rows of these orders, whichever change left them (their stock was put right). */
export async function clearStockSteps(db: Sql, orderUuids: readonly string[]): Promise<void> {
  if (orderUuids.length === 0) return;
  await db.query(`DELETE FROM orders.stock_step WHERE order_uuid = ANY($1::uuid[])`, [orderUuids]);
}

/** Deletes this change's rows (it did not commit, and its stock steps were all undone); another change's stay. */
export async function clearOwnStockSteps(db: Sql, orderUuids: readonly string[], changeId: string): Promise<void> {
  if (orderUuids.length === 0) return;
  await db.query(`DELETE FROM orders.stock_step WHERE order_uuid = ANY($1::uuid[]) AND change_id = $2::uuid`, [orderUuids, changeId]);
}

/**
 * How many of these orders still have this change's row, each locked (FOR UPDATE): a row whose
 * delete is in flight (the change's COMMIT, sent before its connection was lost) is waited for and
 * then not counted. Another change's row of the order is not counted either.
 */
export async function lockOwnStockSteps(db: Sql, orderUuids: readonly string[], changeId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM orders.stock_step WHERE order_uuid = ANY($1::uuid[]) AND change_id = $2::uuid FOR UPDATE) own`,
    [orderUuids, changeId],
  );
  return rows[0]!.n;
}

/** Rows older than `olderThanMs`, oldest first: changes that should have ended long ago, and when each began. */
export async function leftoverStockSteps(db: Sql, olderThanMs: number, limit: number): Promise<{ orderUuid: string; startedAt: Date }[]> {
  const { rows } = await db.query<{ order_uuid: string; started_at: Date }>(
    `SELECT order_uuid::text AS order_uuid, started_at FROM orders.stock_step
      WHERE started_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY started_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({ orderUuid: r.order_uuid, startedAt: r.started_at }));
}

/** When the change that left the order's row began; null when there is no row (any more). */
export async function leftStockStep(db: Sql, orderUuid: string): Promise<{ startedAt: Date } | null> {
  const { rows } = await db.query<{ started_at: Date }>(`SELECT started_at FROM orders.stock_step WHERE order_uuid = $1::uuid`, [orderUuid]);
  return rows[0] ? { startedAt: rows[0].started_at } : null;
}
