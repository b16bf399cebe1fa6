import { prepared } from '@pf/platform/db/statement';
import type { PgTransaction, Read } from '@pf/platform/db/transaction';
import { readRows } from './db';

/**
 * The order's fence (migration 0005), null when it was never raised. Read after the order's
 * advisory lock, in the same round trip: every fence raise of the order happens under that lock.
 */
export function orderFenceRead(orderUuid: string): Read<bigint | null> {
  return readRows<{ fence: string }, bigint | null>(
    `SELECT fence::text AS fence FROM stock.order_fence WHERE order_uuid = $1::uuid`,
    [orderUuid],
    (rows) => (rows[0] ? BigInt(rows[0].fence) : null),
  );
}

/**
 * How long a fence outlives its last raise. A fence only has to outlast the calls it refuses: calls
 * stock was still working on when the orders service gave up on them. Such a call waits at most for
 * the order's and its products' locks, each held for one short transaction: seconds. A day is far
 * beyond that.
 */
export const ORDER_FENCE_KEPT = '1 day';

/**
 * Raises the locked order's fence to `fence` (never lowers it), sent with COMMIT. Fences older than
 * {@link ORDER_FENCE_KEPT} go with it: fences are only raised by repairs, so pruning at each raise
 * keeps the table to about a day's repairs without a timer of its own.
 */
export function raiseOrderFence(tx: PgTransaction, orderUuid: string, fence: bigint): void {
  tx.defer(prepared('stock', `DELETE FROM stock.order_fence WHERE raised_at < now() - $1::interval`, [ORDER_FENCE_KEPT]));
  tx.defer(
    prepared(
      'stock',
      `INSERT INTO stock.order_fence (order_uuid, fence) VALUES ($1::uuid, $2::bigint)
         ON CONFLICT (order_uuid) DO UPDATE SET fence = EXCLUDED.fence, raised_at = now()
         WHERE stock.order_fence.fence < EXCLUDED.fence`,
      [orderUuid, fence.toString()],
    ),
  );
}
