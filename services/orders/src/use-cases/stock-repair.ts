import { decide } from '../domain/order-state-machine';
import type { Order } from '../domain/model';
import { lockAndLoadOrder, updateOrder, type Tx } from '../repositories/order-repository';
import { clearStockStepWithCommit, leftoverStockSteps, nextStockFence } from '../repositories/stock-step-repository';
import { stateOf } from './change-order';
import type { StockApi } from '../adapters/stock-client';
import { inTransaction, type OrdersDeps, type Unit } from './deps';
import { orderEvents } from './events';
import { repairOrderStock } from './order-stock-repair';
import { followStock } from './stock-fulfillability';
import { applyMove, changeContext } from './transitions';

export interface StockRepairOutcome {
  /** Orders looked at (their journal rows were older than the grace period). */
  examined: number;
  /** Orders whose holds were put right. */
  repaired: number;
  /** Orders another change held at the time: looked at again on the next run. */
  busy: number;
  /** Orders whose stock was sold meanwhile: moved without it (`stock-lost`). */
  stockLost: number;
}

/**
 * The stock repair (docs/orders.md, "When a change does not finish"): for each order whose change
 * called the stock service more than `olderThanMs` ago and neither committed nor undid it, makes
 * its holds match the order as committed (`stockRepairOf`), under the order's row lock, and
 * deletes its journal row in the same transaction. An order a change holds right now is left for
 * the next run; a failure leaves the row, so the repair is tried again.
 */
export async function repairLeftoverStockSteps(deps: OrdersDeps, opts: { olderThanMs: number; limit: number }): Promise<StockRepairOutcome> {
  const outcome: StockRepairOutcome = { examined: 0, repaired: 0, busy: 0, stockLost: 0 };
  for (const { orderUuid, startedAt } of await leftoverStockSteps(deps.pool, opts.olderThanMs, opts.limit)) {
    outcome.examined++;
    try {
      const result = await inTransaction(deps, async (tx, unit) => {
        const order = await lockAndLoadOrder(tx, orderUuid, { nowait: true });
        if (order === 'locked') return 'busy' as const;
        // Every stock call of the repair carries a new fence token: the interrupted change's are refused from its first on.
        const stock = deps.stock.fenced(await nextStockFence(tx));
        const repaired = await repairOrderStock(stock, deps.logger, orderUuid, order, startedAt);
        if (repaired === 'stock-lost' && order) await moveOrderWithoutItsStock(deps, tx, unit, order, stock);
        clearStockStepWithCommit(tx, orderUuid);
        return repaired;
      });
      if (result === 'busy') outcome.busy++;
      if (result === 'repaired') outcome.repaired++;
      if (result === 'stock-lost') outcome.stockLost++;
    } catch (err) {
      deps.logger.error({ err, orderUuid }, 'stock repair of an order failed; tried again on the next run');
    }
  }
  return outcome;
}

/** The status history's reason for `stock-lost`. */
const STOCK_LOST_REASON = 'Its stock was sold while a change of the order did not finish; queue it again to hold stock anew.';

/**
 * The order's stock could not be given back (row 15 or 16, `stock-lost`): a confirmed order goes to
 * `holding` without fulfilments (confirmedAt kept; queued again, it holds stock anew or is told
 * what is short), a draft loses its reservation. Its stock calls go straight to the stock service
 * with the repair's fence token: this repair is what its journal row waits for (journaled, they
 * would find that row and repair again). An order that cannot move (something of it was sent
 * meanwhile) is left as it is, logged.
 */
async function moveOrderWithoutItsStock(deps: OrdersDeps, tx: Tx, unit: Unit, order: Order, stock: StockApi): Promise<void> {
  const ctx = changeContext(deps, tx, { ...unit, stock }, { actor: 'stock-repair', trigger: 'stock-lost', reason: STOCK_LOST_REASON });
  const decision = decide(stateOf(order), 'stock-lost', { now: ctx.now });
  if (decision.kind !== 'move') {
    deps.logger.error({ orderUuid: order.uuid, status: order.status, why: decision.kind === 'refused' ? decision.detail : decision.kind }, 'an order whose stock was sold meanwhile could not be moved; it holds none');
    return;
  }
  const moved = await applyMove(ctx, order, decision);
  // It follows stock from now on (what it needs recorded); the figures it follows are read now:
  // no release of its own will come to derive it again (the lost change's came long ago).
  const status = await followStock(tx, moved, moved.lines);
  if (status === moved.fulfillableStatus) return;
  const next: Order = { ...moved, fulfillableStatus: status };
  await updateOrder(tx, next);
  unit.events.push(orderEvents.fulfillableStatusChanged(next, moved.fulfillableStatus, status));
}
