import type { Logger } from '@pf/platform/logging';
import { Problem } from '@pf/platform/problems';
import type { StockApi } from '../adapters/stock-client';
import { holdableLines } from '../domain/fulfilments';
import type { Order } from '../domain/model';
import { stockRepairOf, type HoldView, type StockRepair } from '../domain/stock-repair';

/**
 * What a repair came to: nothing to do, put right, or the stock the order should hold is gone (sold
 * while its change had given it up): the order cannot have it back, and must be moved
 * (`stock-lost`: a confirmed order to holding without fulfilments, a draft without its
 * reservation). The order then holds nothing.
 */
export type OrderStockRepair = 'fine' | 'repaired' | 'stock-lost';

/**
 * Makes the order's holds match the order as committed (`stockRepairOf`): reads them from stock as
 * it raises the order's fence there (`stock` is fenced with the repair's token, so calls of the
 * interrupted change still on their way are refused from then on), then releases, reinstates,
 * consumes again or holds again as the rule says. The caller holds the
 * order's row lock, so nothing changes the order meanwhile. Stock refuses to place released holds
 * again once their stock was sold meanwhile, and a hold anew may be short: then every hold placed
 * for the order is released and the answer is `stock-lost`.
 */
export async function repairOrderStock(
  stock: StockApi,
  logger: Pick<Logger, 'error' | 'warn'>,
  orderUuid: string,
  order: Order | null,
  /** When the interrupted change began (its journal row's started_at): stock consumed since is its doing. */
  since: Date,
): Promise<OrderStockRepair> {
  const holds: HoldView[] = (await stock.fenceOrderHolds(orderUuid)).map((h) => ({
    id: h.id,
    lineNumber: h.lineNumber,
    quantity: h.quantity,
    status: h.status,
    locationCode: h.location.code,
    releasedAt: h.releasedAt ? new Date(h.releasedAt) : null,
    consumedAt: h.consumedAt ? new Date(h.consumedAt) : null,
    returnedAt: h.returnedAt ? new Date(h.returnedAt) : null,
  }));
  const repair = stockRepairOf(order, holds, since);
  if (!needsWork(repair)) return 'fine';
  if (repair.unconsume.length > 0) await stock.unconsumeHolds(orderUuid, repair.unconsume);
  if (repair.releasePlaced) await stock.releaseHolds(orderUuid);
  if (repair.reconsume.length > 0) await stock.reconsumeHolds(orderUuid, repair.reconsume);
  let lost = false;
  if (repair.reinstate.length > 0) {
    try {
      await stock.reinstateHolds(orderUuid, repair.reinstate);
    } catch (err) {
      if (!(err instanceof Problem && err.problemType === 'stock-unavailable')) throw err;
      logger.error({ orderUuid, shortages: err.extensions.shortages }, "stock repair could not place the order's released holds again: their stock was sold meanwhile");
      lost = true;
    }
  }
  if (repair.holdAgain && order) {
    const held = await stock.holdStock({ teamCode: order.teamCode, orderUuid, lines: holdableLines(order.lines) });
    if (held.kind === 'short') {
      logger.error({ orderUuid, shortages: held.shortages }, "stock repair could not hold the order's lines again: their stock was sold meanwhile");
      lost = true;
    }
  }
  logger.warn({ orderUuid, repair, lost }, 'stock holds of an order whose change did not finish were put right');
  return lost ? 'stock-lost' : 'repaired';
}

function needsWork(r: StockRepair): boolean {
  return r.unconsume.length > 0 || r.releasePlaced || r.reinstate.length > 0 || r.reconsume.length > 0 || r.holdAgain;
}
