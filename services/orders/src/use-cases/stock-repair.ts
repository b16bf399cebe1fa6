import type { Order } from '../domain/model';
import { stockRepairOf, type HoldView, type StockRepair } from '../domain/stock-repair';
import { lockAndLoadOrder } from '../repositories/order-repository';
import { leftoverStockSteps } from '../repositories/stock-step-repository';
import { inTransaction, type OrdersDeps } from './deps';

export interface StockRepairOutcome {
  /** Orders looked at (their journal rows were older than the grace period). */
  examined: number;
  /** Orders whose holds were put right. */
  repaired: number;
  /** Orders another change held at the time: looked at again on the next run. */
  busy: number;
}

/**
 * The stock repair (docs/orders.md, "When a change does not finish"): for each order whose change
 * called the stock service more than `olderThanMs` ago and neither committed nor undid it, makes
 * its holds match the order as committed (`stockRepairOf`), under the order's row lock, and
 * deletes its journal row in the same transaction. An order a change holds right now is left for
 * the next run; a failure leaves the row, so the repair is tried again.
 */
export async function repairLeftoverStockSteps(deps: OrdersDeps, opts: { olderThanMs: number; limit: number }): Promise<StockRepairOutcome> {
  const outcome: StockRepairOutcome = { examined: 0, repaired: 0, busy: 0 };
  for (const orderUuid of await leftoverStockSteps(deps.pool, opts.olderThanMs, opts.limit)) {
    outcome.examined++;
    try {
      const result = await inTransaction(deps, async (tx) => {
        const order = await lockAndLoadOrder(tx, orderUuid, { nowait: true });
        if (order === 'locked') return 'busy' as const;
        const holds: HoldView[] = (await deps.stock.orderHolds(orderUuid)).map((h) => ({
          id: h.id,
          lineNumber: h.lineNumber,
          quantity: h.quantity,
          status: h.status,
          locationCode: h.location.code,
          releasedAt: h.releasedAt ? new Date(h.releasedAt) : null,
          returnedAt: h.returnedAt ? new Date(h.returnedAt) : null,
        }));
        const repair = stockRepairOf(order, holds);
        await applyRepair(deps, orderUuid, order, repair);
        await tx.query('DELETE FROM orders.stock_step WHERE order_uuid = $1::uuid', [orderUuid]);
        return needsWork(repair) ? ('repaired' as const) : ('fine' as const);
      });
      if (result === 'busy') outcome.busy++;
      if (result === 'repaired') {
        outcome.repaired++;
        deps.logger.warn({ orderUuid }, 'stock holds of an order whose change did not finish were put right');
      }
    } catch (err) {
      deps.logger.error({ err, orderUuid }, 'stock repair of an order failed; tried again on the next run');
    }
  }
  return outcome;
}

function needsWork(r: StockRepair): boolean {
  return r.releasePlaced || r.reinstate.length > 0 || r.reconsume.length > 0 || r.holdAgain;
}

async function applyRepair(deps: OrdersDeps, orderUuid: string, order: Order | null, r: StockRepair): Promise<void> {
  if (r.releasePlaced) await deps.stock.releaseHolds(orderUuid);
  if (r.reinstate.length > 0) await deps.stock.reinstateHolds(orderUuid, r.reinstate);
  if (r.reconsume.length > 0) await deps.stock.reconsumeHolds(orderUuid, r.reconsume);
  if (r.holdAgain && order) {
    const lines = order.lines.filter((l) => l.productUuid !== null).map((l) => ({ lineNumber: l.lineNumber, productUuid: l.productUuid!, quantity: l.quantity }));
    const held = await deps.stock.holdStock({ teamCode: order.teamCode, orderUuid, lines });
    if (held.kind === 'short') deps.logger.error({ orderUuid, shortages: held.shortages }, 'stock repair could not hold the order\'s lines again: its stock was sold meanwhile');
  }
}
