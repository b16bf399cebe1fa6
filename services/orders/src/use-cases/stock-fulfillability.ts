import type pg from 'pg';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { StockLevelChanged } from '@pf/platform/events/stock';
import { derivesFromStock, fulfillabilityFromStock, fulfillabilityOnTakingStock, neededPerProduct } from '../domain/fulfillability';
import type { Order, OrderLine } from '../domain/model';
import type { FulfillableStatus } from '../domain/order-state-machine';
import { lockAndLoadOrder, updateOrder, type Sql } from '../repositories/order-repository';
import { applyStockFigures, claimInboxEvents, stockDerivedOrdersOn, stockFiguresOf, type StockFigureState } from '../repositories/stock-figure-repository';
import { inTransaction, nowOf, type OrdersDeps, type Unit } from './deps';
import { orderEvents } from './events';
import type { ChangeContext } from './transitions';

/**
 * `fulfillableStatus` follows stock (docs/orders.md, "fulfillableStatus from stock"): the stock
 * read model is fed by stock's `stock-level.changed`, and every change of a product's figure
 * derives again the status of the orders whose stock is not theirs yet (domain/fulfillability.ts).
 */

/** Inbox consumer name of the stock read model. */
export const STOCK_FIGURES_CONSUMER = 'orders.stock-figures';

/** What the stock consumer needs: the database, the clock, a logger. */
export type StockDeps = Pick<OrdersDeps, 'pool' | 'logger' | 'now'>;

export interface StockRunOutcome {
  /** Events applied now (new to the inbox). */
  applied: number;
  /** Seen before: nothing done. */
  duplicates: number;
  /** Not stock-level events. */
  ignored: number;
  /** Orders whose fulfillable status changed (one event each). */
  ordersChanged: number;
}

/**
 * Applies a run of stock events (in their order on the bus) in one transaction: the inbox takes
 * each at most once; the newest figure of each product is kept (by changedAt); then the orders
 * whose fulfillable status follows stock and that have a line on a product whose figure changed
 * are derived again (one query for the run), and each whose status changes is locked, read again
 * and saved with one `order.fulfillable-status-changed`. An unchanged order is not written.
 */
export async function applyStockLevelEvents(deps: StockDeps, events: readonly EventEnvelope[]): Promise<StockRunOutcome> {
  const stockEvents = events.filter((e) => StockLevelChanged.is(e));
  const ignored = events.length - stockEvents.length;
  if (stockEvents.length === 0) return { applied: 0, duplicates: 0, ignored, ordersChanged: 0 };
  return inTransaction(deps, async (tx, unit) => {
    const fresh = await claimInboxEvents(
      tx,
      STOCK_FIGURES_CONSUMER,
      stockEvents.map((e) => e.id),
    );
    // One product's events are in order on the bus: within the run the later one wins.
    const latest = new Map<string, StockFigureState>();
    let applied = 0;
    for (const e of stockEvents) {
      if (!fresh.has(e.id.toLowerCase()) || !StockLevelChanged.is(e)) continue;
      applied++;
      const p = e.payload;
      const productUuid = p.productUuid.toLowerCase();
      const changedAt = new Date(p.changedAt);
      const seen = latest.get(productUuid);
      if (!seen || seen.changedAt.getTime() <= changedAt.getTime()) latest.set(productUuid, { productUuid, teamCode: p.teamCode, stock: p.stock, changedAt });
    }
    const changed = await applyStockFigures(tx, [...latest.values()]);
    const ordersChanged = await deriveAgain(
      deps,
      tx,
      unit,
      changed.map((c) => c.teamCode),
      changed.map((c) => c.productUuid),
    );
    return { applied, duplicates: stockEvents.length - applied, ignored, ordersChanged };
  });
}

/** Derives again the orders on these products whose status follows stock; how many changed. */
async function deriveAgain(deps: StockDeps, tx: pg.PoolClient, unit: Unit, teamCodes: string[], productUuids: string[]): Promise<number> {
  const candidates = await stockDerivedOrdersOn(tx, teamCodes, productUuids);
  if (candidates.length === 0) return 0;
  const asked = new Set(candidates.flatMap((c) => c.lines.map((l) => l.productUuid!)));
  const figures = await stockFiguresOf(tx, [...asked]);
  // Only orders whose status would change are locked (in uuid order: the query sorts them).
  const stale = candidates.filter((c) => fulfillabilityFromStock(c.lines, figures) !== c.fulfillableStatus);
  let changed = 0;
  for (const candidate of stale) {
    // Read again under the lock: a change of the order may have committed since the query.
    const order = await lockAndLoadOrder(tx, candidate.uuid);
    if (order === null || order === 'locked' || !derivesFromStock(order)) continue;
    const unasked = order.lines.flatMap((l) => (l.productUuid !== null && !asked.has(l.productUuid) ? [l.productUuid] : []));
    if (unasked.length > 0) {
      for (const [product, stock] of await stockFiguresOf(tx, unasked)) figures.set(product, stock);
      for (const product of unasked) asked.add(product);
    }
    const status = fulfillabilityFromStock(order.lines, figures);
    if (status === order.fulfillableStatus) continue;
    const next: Order = { ...order, fulfillableStatus: status, updatedAt: nowOf(deps) };
    await updateOrder(tx, next);
    unit.events.push(orderEvents.fulfillableStatusChanged(next, order.fulfillableStatus, status));
    changed++;
  }
  return changed;
}

/**
 * The fulfillable status of a new or replaced order from the stock read model: what the figures
 * give its lines (`fulfillable` when stock is held for it, and for products whose figure is not
 * known yet). `released`: the lines whose holds this change gave back (a replay without reserve
 * of a reserved draft); the read model has not seen that release yet, so their quantities are
 * added to the figures (the release's own events correct any difference when they arrive).
 */
export async function fulfillabilityOfLines(db: Sql, lines: readonly OrderLine[], stockHeld: boolean, released: readonly OrderLine[] = []): Promise<FulfillableStatus> {
  if (stockHeld) return 'fulfillable';
  const products = lines.flatMap((l) => (l.productUuid !== null ? [l.productUuid] : []));
  if (products.length === 0) return 'fulfillable';
  const figures = await stockFiguresOf(db, products);
  for (const [product, quantity] of neededPerProduct(released)) {
    const figure = figures.get(product);
    if (figure !== undefined) figures.set(product, figure + quantity);
  }
  return fulfillabilityFromStock(lines, figures);
}

/**
 * After a change that may have taken stock for the order (confirmation, queue, schedule, process
 * now): the holds covered every line, so an order that was not fulfillable becomes fulfillable,
 * with one event. Returns the order as it is now.
 */
export async function fulfillableOnTakingStock(ctx: ChangeContext, before: Order, after: Order): Promise<Order> {
  const status = fulfillabilityOnTakingStock(before, after);
  if (status === null) return after;
  const next: Order = { ...after, fulfillableStatus: status };
  await updateOrder(ctx.tx, next);
  ctx.unit.events.push(orderEvents.fulfillableStatusChanged(next, after.fulfillableStatus, status));
  return next;
}
