import type { Fulfilment, Order } from './model';

/** One hold of the order as the stock service reports it. */
export interface HoldView {
  id: string;
  lineNumber: number;
  quantity: number;
  status: 'PLACED' | 'RELEASED' | 'CONSUMED' | 'RETURNED';
  locationCode: string;
  releasedAt: Date | null;
  consumedAt: Date | null;
  returnedAt: Date | null;
}

/** What the stock service must do so that the order's holds match the order as committed. */
export interface StockRepair {
  /**
   * Holds the interrupted change consumed where no fulfilment of the order is a draft or was sent
   * (a draft processed now whose process ended before its undo): placed again first
   * (unconsumeHolds, exactly those), then treated as the placed holds they are by the rest.
   */
  unconsume: string[];
  /** Release every placed hold of the order (first, when holds are also reinstated or held again). */
  releasePlaced: boolean;
  /** Released holds to place again: exactly what the order's draft fulfilments hold. */
  reinstate: string[];
  /** Returned holds to consume again: their fulfilment was sent and is not cancelled. */
  reconsume: string[];
  /** Hold the order's lines again (no released holds fit; the allocation may differ from the fulfilments'). */
  holdAgain: boolean;
}

export const NOTHING_TO_REPAIR: StockRepair = { unconsume: [], releasePlaced: false, reinstate: [], reconsume: [], holdAgain: false };

/** Fulfilment statuses whose goods left on hand (their holds consumed): sent and not cancelled. */
const SENT: readonly Fulfilment['status'][] = ['processing', 'back-order', 'invalid', 'dispatched', 'returned', 'failed'];

/**
 * The stock repair of an order whose change called the stock service and never committed nor
 * undid it (its process ended in between): from the order as committed (null: it was never
 * created) and its holds, what stock must do. The rule depends on states only, so it is right
 * whatever committed since:
 * - an order that holds no stock (or does not exist) has no placed hold;
 * - an order that holds stock without fulfilments holds each line's quantity (any location);
 * - an order with draft fulfilments holds each of their lines at their location: counted as held
 *   are placed holds and holds consumed there (a sending whose commit was lost: its timer sends
 *   it again and takes nothing twice); otherwise the released holds that fit exactly are placed
 *   again, the latest first, or the lines are held anew;
 * - at a location whose fulfilment was sent and not cancelled nothing is returned unless
 *   something stays consumed: the latest returned holds there are consumed again;
 * - anywhere else (no fulfilment there, or a cancelled one) what the interrupted change consumed
 *   is placed again first, and counts as placed for the rules above.
 * "Consumed by the interrupted change" is consumed since `since` (its journal row's start, written
 * before its first stock call): stock consumed earlier is another story, e.g. a failed
 * fulfilment's, which stays consumed when its order goes back to holding (stockStepOf).
 */
export function stockRepairOf(
  order: Pick<Order, 'stockHeld' | 'lines' | 'fulfilments'> | null,
  asStored: readonly HoldView[],
  since: Date,
): StockRepair {
  const consumedSince = (h: HoldView) => h.status === 'CONSUMED' && h.consumedAt !== null && h.consumedAt.getTime() >= since.getTime();
  const unconsume = consumedWithoutFulfilment(order, asStored.filter(consumedSince));
  // The rest of the rule sees them as they will be: placed.
  const holds = asStored.map((h) => (unconsume.includes(h.id) ? { ...h, status: 'PLACED' as const, consumedAt: null } : h));
  const placed = holds.filter((h) => h.status === 'PLACED');
  if (order === null || !order.stockHeld) return { ...NOTHING_TO_REPAIR, unconsume, releasePlaced: placed.length > 0, reconsume: order ? reconsumed(order, holds) : [] };
  const repair: StockRepair = { ...NOTHING_TO_REPAIR, unconsume, reconsume: reconsumed(order, holds) };
  const drafts = order.fulfilments.filter((f) => f.status === 'draft');
  if (order.fulfilments.length === 0) {
    const wanted = totals(order.lines.filter((l) => l.productUuid !== null).map((l) => [String(l.lineNumber), l.quantity]));
    const have = totals(placed.map((h) => [String(h.lineNumber), h.quantity]));
    if (!sameTotals(wanted, have)) Object.assign(repair, { releasePlaced: placed.length > 0, holdAgain: wanted.size > 0 });
    return repair;
  }
  const draftLocations = new Set(drafts.map((f) => f.supplierLocation.code));
  const wanted = totals(drafts.flatMap((f) => f.lines.map((l) => [key(l.lineNumber, f.supplierLocation.code), l.quantity] as [string, number])));
  const counted = holds.filter((h) => h.status === 'PLACED' || (consumedSince(h) && draftLocations.has(h.locationCode)));
  if (sameTotals(wanted, totals(counted.map((h) => [key(h.lineNumber, h.locationCode), h.quantity])))) return repair;
  repair.releasePlaced = placed.length > 0;
  const fitting = latestFitting(wanted, holds.filter((h) => h.status === 'RELEASED'));
  if (fitting) repair.reinstate = fitting;
  else repair.holdAgain = wanted.size > 0;
  return repair;
}

/** The ids of these consumed holds at locations where no fulfilment of the order is a draft or was sent. */
function consumedWithoutFulfilment(order: Pick<Order, 'fulfilments'> | null, consumed: readonly HoldView[]): string[] {
  const keeping = new Set((order?.fulfilments ?? []).filter((f) => f.status === 'draft' || SENT.includes(f.status)).map((f) => f.supplierLocation.code));
  return consumed.filter((h) => !keeping.has(h.locationCode)).map((h) => h.id);
}

/** Returned holds at locations whose fulfilment was sent, not cancelled, and has nothing consumed. */
function reconsumed(order: Pick<Order, 'fulfilments'>, holds: readonly HoldView[]): string[] {
  const sentLocations = new Set(order.fulfilments.filter((f) => SENT.includes(f.status)).map((f) => f.supplierLocation.code));
  const ids: string[] = [];
  for (const code of sentLocations) {
    const here = holds.filter((h) => h.locationCode === code);
    if (here.some((h) => h.status === 'CONSUMED')) continue;
    const returned = here.filter((h) => h.status === 'RETURNED' && h.returnedAt !== null);
    const latest = Math.max(...returned.map((h) => h.returnedAt!.getTime()));
    ids.push(...returned.filter((h) => h.returnedAt!.getTime() === latest).map((h) => h.id));
  }
  return ids;
}

/** For each wanted (line, location), the latest released hold of exactly its quantity; null unless all are found. */
function latestFitting(wanted: ReadonlyMap<string, number>, released: readonly HoldView[]): string[] | null {
  const ids: string[] = [];
  for (const [k, quantity] of wanted) {
    const candidates = released
      .filter((h) => key(h.lineNumber, h.locationCode) === k && h.quantity === quantity)
      .sort((a, b) => (b.releasedAt?.getTime() ?? 0) - (a.releasedAt?.getTime() ?? 0));
    if (candidates.length === 0) return null;
    ids.push(candidates[0]!.id);
  }
  return ids;
}

function key(lineNumber: number, locationCode: string): string {
  return `${lineNumber}@${locationCode}`;
}

function totals(entries: readonly (readonly [string, number])[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, q] of entries) out.set(k, (out.get(k) ?? 0) + q);
  return out;
}

function sameTotals(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([k, q]) => b.get(k) === q);
}
