import { lockAndLoadOrder } from '../repositories/order-repository';
import { clearStockStepWithCommit, leftoverStockSteps } from '../repositories/stock-step-repository';
import { inTransaction, type OrdersDeps } from './deps';
import { repairOrderStock } from './order-stock-repair';

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
        const repaired = await repairOrderStock(deps.stock, deps.logger, orderUuid, order);
        clearStockStepWithCommit(tx, orderUuid);
        return repaired ? ('repaired' as const) : ('fine' as const);
      });
      if (result === 'busy') outcome.busy++;
      if (result === 'repaired') outcome.repaired++;
    } catch (err) {
      deps.logger.error({ err, orderUuid }, 'stock repair of an order failed; tried again on the next run');
    }
  }
  return outcome;
}
