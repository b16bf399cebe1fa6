/**
 * The order's `fulfillableStatus` derived from stock: whether the stock the stock service reports
 * (rule S1, the figure of `GET /stock-levels`) covers the order's lines. Pure; the use case
 * `stock-fulfillability.ts` feeds it the figures of the stock read model.
 *
 * - Lines of one product are added up: two lines of 5 need 10.
 * - A product is covered when its figure is at least what the order needs, partly covered when the
 *   figure is above 0 but below, uncovered at 0.
 * - Every product covered -> `fulfillable`; none covered at all -> `not-fulfillable`; anything
 *   between (some covered, or some partly) -> `partially-fulfillable`.
 * - Unmatched lines (no product) need no stock and are left out; a product whose figure is not
 *   known yet (no stock event seen) counts as covered: we do not claim a shortage we cannot see.
 *   An order with nothing left to judge is `fulfillable`.
 *
 * It applies only to orders whose stock is not theirs yet (`derivesFromStock`): an order with
 * stock held has it set aside (the figure already excludes it), one that was sent consumed it.
 */
import type { Order } from './model';
import { isFinished, somethingSent, type FulfillableStatus, type OrderStatus } from './order-state-machine';

/** What the rule needs of a line. */
export interface StockLine {
  productUuid: string | null;
  quantity: number;
}

/** Product uuid -> current S1 figure; a product absent from the map has no known figure. */
export type StockFigures = ReadonlyMap<string, number>;

/** How far a product's figure covers what the order needs of it. */
export type Coverage = 'covered' | 'partly' | 'uncovered';

export function coverage(needed: number, figure: number | undefined): Coverage {
  if (figure === undefined || figure >= needed) return 'covered';
  return figure > 0 ? 'partly' : 'uncovered';
}

/** Quantity needed per product (unmatched lines left out). */
export function neededPerProduct(lines: readonly StockLine[]): Map<string, number> {
  const needed = new Map<string, number>();
  for (const l of lines) {
    if (l.productUuid === null) continue;
    needed.set(l.productUuid, (needed.get(l.productUuid) ?? 0) + l.quantity);
  }
  return needed;
}

/**
 * The needs of a product whose coverage changes when its figure goes from `before` (undefined: not
 * known, which counts as covering anything) to `after`: exactly those with `needed > above` and,
 * when `atMost` is not null, `needed <= atMost`. Lets a query find the few orders a figure change
 * concerns without reading the others (in the orders benchmark, a figure of a million going down
 * by one concerns none).
 */
export function needsAffected(before: number | undefined, after: number): { above: number; atMost: number | null } {
  const low = before === undefined ? after : Math.min(before, after);
  const high = before === undefined ? null : Math.max(before, after);
  // To or from 0: every need changes (covered or partly covered <-> uncovered).
  if (low === 0) return { above: 0, atMost: null };
  // Both above 0: only needs between the two figures cross "covered".
  return { above: low, atMost: high };
}

/** The fulfillable status the figures give these lines. */
export function fulfillabilityFromStock(lines: readonly StockLine[], figures: StockFigures): FulfillableStatus {
  const coverages = [...neededPerProduct(lines)].map(([product, needed]) => coverage(needed, figures.get(product)));
  if (coverages.every((c) => c === 'covered')) return 'fulfillable';
  if (coverages.every((c) => c === 'uncovered')) return 'not-fulfillable';
  return 'partially-fulfillable';
}

/**
 * Statuses in which an order can be without held stock and with nothing sent (not finished, not
 * processing, back-order or invalid, which are sent): the only ones whose fulfillable status
 * follows stock. (The orders' partial index `orders_stock_derived_idx` and the
 * query that finds affected orders use the same list.)
 */
export const STOCK_DERIVED_STATUSES: readonly OrderStatus[] = ['draft', 'queued', 'scheduled', 'holding', 'error'];

/**
 * Whether the order's fulfillable status follows stock: its stock is not its own yet (none held,
 * nothing sent) and it is not finished. In practice a draft, or an order held back (`holding`)
 * whose holds were released.
 */
export function derivesFromStock(order: Pick<Order, 'status' | 'stockHeld' | 'fulfilments'>): boolean {
  if (order.stockHeld || !STOCK_DERIVED_STATUSES.includes(order.status)) return false;
  return !somethingSent({ fulfilmentStatuses: order.fulfilments.map((f) => f.status) });
}

/** The order's stock is its own: held for it, or consumed by a fulfilment sent. */
function ownsStock(order: Pick<Order, 'stockHeld' | 'fulfilments'>): boolean {
  return order.stockHeld || somethingSent({ fulfilmentStatuses: order.fulfilments.map((f) => f.status) });
}

/**
 * The status an order gets when a change took stock for it (reserve on create or replay,
 * confirmation, queue, schedule, process now): the holds covered every line, so it is fulfillable
 * by definition, whatever stock or a merchant said before. `null`: nothing to change (no stock
 * taken by this change, the order finished, or fulfillable already).
 */
export function fulfillabilityOnTakingStock(
  before: Pick<Order, 'stockHeld' | 'fulfilments'>,
  after: Pick<Order, 'status' | 'stockHeld' | 'fulfilments' | 'fulfillableStatus'>,
): FulfillableStatus | null {
  if (ownsStock(before) || !ownsStock(after) || isFinished(after.status) || after.fulfillableStatus === 'fulfillable') return null;
  return 'fulfillable';
}
