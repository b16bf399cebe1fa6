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
 */
export async function recordStockStep(db: Sql, orderUuid: string): Promise<boolean> {
  const results = (await db.query(
    `BEGIN; SET LOCAL synchronous_commit = off;
     INSERT INTO orders.stock_step (order_uuid) VALUES ('${asUuid(orderUuid)}') ON CONFLICT (order_uuid) DO NOTHING;
     COMMIT`,
  )) as unknown as { rowCount: number | null }[];
  // false: a row is there already, left by a change that did not finish; it stays for the repair.
  return results[2]?.rowCount === 1;
}

const CLEAR_STOCK_STEP = statement('orders', `DELETE FROM orders.stock_step WHERE order_uuid = $1::uuid`);

/** Deletes the order's row with the change's COMMIT: committed, the change needs no repair. */
export function clearStockStepWithCommit(tx: Tx, orderUuid: string): void {
  tx.defer(CLEAR_STOCK_STEP([orderUuid]));
}

/** Deletes the rows of a change that did not commit and whose stock steps were all undone. */
export async function clearStockSteps(db: Sql, orderUuids: readonly string[]): Promise<void> {
  if (orderUuids.length === 0) return;
  await db.query(`DELETE FROM orders.stock_step WHERE order_uuid = ANY($1::uuid[])`, [orderUuids]);
}

/** Rows older than `olderThanMs`, oldest first: changes that should have ended long ago. */
export async function leftoverStockSteps(db: Sql, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ order_uuid: string }>(
    `SELECT order_uuid::text AS order_uuid FROM orders.stock_step
      WHERE started_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY started_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.order_uuid);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The uuid, checked: it goes into a simple-protocol query (three statements need it). */
function asUuid(value: string): string {
  if (!UUID.test(value)) throw new Error(`not a uuid: ${value}`);
  return value.toLowerCase();
}
