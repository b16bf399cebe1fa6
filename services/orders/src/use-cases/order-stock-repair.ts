import type { Logger } from '@pf/platform/logging';
import type { StockApi } from '../adapters/stock-client';
import type { Order } from '../domain/model';
import { stockRepairOf, type HoldView, type StockRepair } from '../domain/stock-repair';

/**
 * Makes the order's holds match the order as committed (`stockRepairOf`): reads them from stock,
 * then releases, reinstates, consumes again or holds again as the rule says. The caller holds the
 * order's row lock, so nothing changes the order meanwhile. True when something was put right.
 */
export async function repairOrderStock(stock: StockApi, logger: Pick<Logger, 'error' | 'warn'>, orderUuid: string, order: Order | null): Promise<boolean> {
  const holds: HoldView[] = (await stock.orderHolds(orderUuid)).map((h) => ({
    id: h.id,
    lineNumber: h.lineNumber,
    quantity: h.quantity,
    status: h.status,
    locationCode: h.location.code,
    releasedAt: h.releasedAt ? new Date(h.releasedAt) : null,
    returnedAt: h.returnedAt ? new Date(h.returnedAt) : null,
  }));
  const repair = stockRepairOf(order, holds);
  if (!needsWork(repair)) return false;
  if (repair.releasePlaced) await stock.releaseHolds(orderUuid);
  if (repair.reinstate.length > 0) await stock.reinstateHolds(orderUuid, repair.reinstate);
  if (repair.reconsume.length > 0) await stock.reconsumeHolds(orderUuid, repair.reconsume);
  if (repair.holdAgain && order) {
    const lines = order.lines.filter((l) => l.productUuid !== null).map((l) => ({ lineNumber: l.lineNumber, productUuid: l.productUuid!, quantity: l.quantity }));
    const held = await stock.holdStock({ teamCode: order.teamCode, orderUuid, lines });
    if (held.kind === 'short') logger.error({ orderUuid, shortages: held.shortages }, "stock repair could not hold the order's lines again: its stock was sold meanwhile");
  }
  logger.warn({ orderUuid, repair }, 'stock holds of an order whose change did not finish were put right');
  return true;
}

function needsWork(r: StockRepair): boolean {
  return r.releasePlaced || r.reinstate.length > 0 || r.reconsume.length > 0 || r.holdAgain;
}
