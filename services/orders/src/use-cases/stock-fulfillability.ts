import type { EventEnvelope } from '@pf/platform/events/envelope';
import { isStockFigureEvent } from '@pf/platform/events/stock';
import { derivesFromStock, fulfillabilityFromStock, fulfillabilityOnTakingStock, neededPerProduct, needsAffected } from '../domain/fulfillability';
import type { Order, OrderLine } from '../domain/model';
import type { FulfillableStatus } from '../domain/order-state-machine';
import { lockAndLoadOrder, updateOrder, type Sql, type Tx } from '../repositories/order-repository';
import {
  applyStockFigures,
  claimInboxEvents,
  dropStockDemand,
  ordersConcernedBy,
  recordStockDemand,
  writeNewStockDemand,
  type StockFigureState,
} from '../repositories/stock-figure-repository';
import { inTransaction, nowOf, type OrdersDeps, type Unit } from './deps';
import { orderEvents } from './events';
import type { ChangeContext } from './transitions';

/**
 * `fulfillableStatus` follows stock (docs/orders.md, "fulfillableStatus from stock"): the stock
 * read model is fed by stock's `stock-level.changed`; an order whose stock is not its own yet
 * keeps what it needs of each product in `stock_demand`, and a change of a product's figure
 * derives again the orders whose coverage of that product it changes (domain/fulfillability.ts).
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
 * each at most once; the newest figure of each product is kept (by changedAt); then one query
 * finds the orders whose coverage of a product changed with its figure, and each whose status
 * changes is locked, read again and saved with one `order.fulfillable-status-changed`. An order
 * whose status stays is not written.
 */
export async function applyStockLevelEvents(deps: StockDeps, events: readonly EventEnvelope[]): Promise<StockRunOutcome> {
  const stockEvents = events.filter(isStockFigureEvent);
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
      if (!fresh.has(e.id.toLowerCase())) continue;
      applied++;
      const p = e.payload;
      const productUuid = p.productUuid.toLowerCase();
      const changedAt = new Date(p.changedAt);
      const seen = latest.get(productUuid);
      if (!seen || seen.changedAt.getTime() <= changedAt.getTime()) latest.set(productUuid, { productUuid, teamCode: p.teamCode, stock: p.stock, changedAt });
    }
    const changes = await applyStockFigures(tx, [...latest.values()]);
    const concerned = changes.map((c) => ({ productUuid: c.productUuid, ...needsAffected(c.previous ?? undefined, c.stock) }));
    const ordersChanged = await deriveAgain(deps, tx, unit, concerned);
    return { applied, duplicates: stockEvents.length - applied, ignored, ordersChanged };
  });
}

/** Derives again the orders these figure changes concern; how many changed status. */
async function deriveAgain(deps: StockDeps, tx: Tx, unit: Unit, concerned: Parameters<typeof ordersConcernedBy>[1]): Promise<number> {
  const orders = await ordersConcernedBy(tx, concerned);
  let changed = 0;
  for (const candidate of orders) {
    const figures = new Map(candidate.needs.flatMap((n) => (n.stock !== null ? [[n.productUuid!, n.stock] as const] : [])));
    if (fulfillabilityFromStock(candidate.needs, figures) === candidate.fulfillableStatus) continue;
    // Read again under the lock (in uuid order): a change of the order may have committed since.
    const order = await lockAndLoadOrder(tx, candidate.uuid);
    if (order === null || order === 'locked') continue;
    if (!derivesFromStock(order)) {
      // Its stock became its own by a path that did not say so: it needs nothing any more.
      await dropStockDemand(tx, [order.uuid]);
      continue;
    }
    // Its needs from its lines as they are now (which also puts right needs a path left stale).
    const status = fulfillabilityFromStock(order.lines, await recordStockDemand(tx, order.uuid, neededPerProduct(order.lines)));
    if (status === order.fulfillableStatus) continue;
    const next: Order = { ...order, fulfillableStatus: status, updatedAt: nowOf(deps) };
    await updateOrder(tx, next);
    unit.events.push(orderEvents.fulfillableStatusChanged(next, order.fulfillableStatus, status));
    changed++;
  }
  return changed;
}

/**
 * The order's lines as they are now (created, replaced, amended): while it follows stock, records
 * what it needs of each product and answers the status the stock read model gives them; with
 * stock held, it needs nothing and is `fulfillable`. `released`: lines whose holds this change
 * gave back (a replay without reserve of a reserved draft); the read model has not seen that
 * release yet, so their quantities are added to the figures (the release's own events correct
 * any difference when they arrive). `known`: false for an order being created (nothing recorded
 * yet, nothing to drop). `figures`: for an order being created, the known figures of its products
 * as read with the change's first round trip (liveProductsRead); its needs are then written with
 * COMMIT instead of in a round trip of their own.
 */
export async function followStock(
  tx: Tx,
  order: Pick<Order, 'uuid' | 'stockHeld'>,
  lines: readonly OrderLine[],
  opts: { released?: readonly OrderLine[]; known?: boolean; figures?: ReadonlyMap<string, number> } = {},
): Promise<FulfillableStatus> {
  if (order.stockHeld) {
    if (opts.known !== false) dropStockDemand(tx, [order.uuid]);
    return 'fulfillable';
  }
  const needs = neededPerProduct(lines);
  if (needs.size === 0 && opts.known === false) return 'fulfillable';
  let figures: Map<string, number>;
  if (opts.known === false && opts.figures) {
    writeNewStockDemand(tx, order.uuid, needs);
    figures = new Map([...needs.keys()].flatMap((p) => (opts.figures!.has(p) ? [[p, opts.figures!.get(p)!] as const] : [])));
  } else figures = await recordStockDemand(tx, order.uuid, needs);
  for (const [product, quantity] of neededPerProduct(opts.released ?? [])) {
    const figure = figures.get(product);
    if (figure !== undefined) figures.set(product, figure + quantity);
  }
  return fulfillabilityFromStock(lines, figures);
}

/**
 * After a change that moved the order (confirmation, cancel, the merchant actions): stock taken for
 * it makes it `fulfillable` (the holds covered every line), with one event, and it needs nothing
 * any more; an order that stops following stock otherwise (cancelled) needs nothing either; one
 * whose holds were released (save as draft, address rejected) follows stock again with its lines,
 * keeping its status (the stock it gave back is its own; the release's stock events derive it
 * again). Returns the order as it is now.
 */
export async function afterStockMove(ctx: ChangeContext, before: Order, after: Order): Promise<Order> {
  const followedBefore = derivesFromStock(before);
  const followsNow = derivesFromStock(after);
  if (followsNow && !followedBefore) await recordStockDemand(ctx.tx, after.uuid, neededPerProduct(after.lines));
  if (followedBefore && !followsNow) await dropStockDemand(ctx.tx, [after.uuid]);
  const status = fulfillabilityOnTakingStock(before, after);
  if (status === null) return after;
  const next: Order = { ...after, fulfillableStatus: status };
  await updateOrder(ctx.tx, next);
  ctx.unit.events.push(orderEvents.fulfillableStatusChanged(next, after.fulfillableStatus, status));
  return next;
}
