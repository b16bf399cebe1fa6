import type { Shortage } from './allocation';
import type { StockHold, WarehouseStock } from './model';

/**
 * What a hold's lifecycle does to the stock rows, as pure rules:
 *
 * - consuming a placed hold (its fulfilment was sent) lowers `held` by its quantity and `on_hand`
 *   by what is there of it (a count set below what orders held leaves less: never below 0);
 *   what it took is kept on the hold (`taken`);
 * - returning a consumed hold (its fulfilment never left the warehouse: cancelled or discarded)
 *   gives exactly `taken` back to `on_hand`; `held` does not move (the hold stopped counting
 *   there when it was consumed);
 * - re-consuming a returned hold (the change that returned it did not commit) takes it off hand
 *   again, like consuming, without touching `held`;
 * - releasing a placed hold (never sent) lowers `held` only; reinstating a released hold (the
 *   change that released it did not commit) raises it again.
 *
 * Print-on-demand holds (no warehouse) hold and take no stock: they move nothing.
 */

/** The change of one stock row (a product in a warehouse). */
export interface LevelDelta {
  productUuid: string;
  warehouseId: string;
  held: number;
  onHand: number;
}

/** One hold's change of on-hand stock, as the adjustments log records it. */
export interface OnHandMove {
  hold: StockHold;
  /** Negative: taken off hand; positive: given back. */
  delta: number;
  onHandAfter: number;
  /** What the hold has taken off hand once moved (kept when returned: what came back). */
  taken: number;
}

export interface StockMovePlan {
  /** Per stock row, in product then warehouse order (the order rows are updated in). */
  deltas: LevelDelta[];
  /** One per warehouse hold, in the holds' order. */
  moves: OnHandMove[];
}

/** `product|warehouse`: the key of a stock row in the maps these rules take. */
export function levelKey(productUuid: string, warehouseId: string): string {
  return `${productUuid}|${warehouseId}`;
}

/** The holds in `status` at the given supplier locations (null or undefined: every location). */
export function holdsAt(holds: readonly StockHold[], status: StockHold['status'], locationCodes?: readonly string[] | null): StockHold[] {
  return holds.filter((h) => h.status === status && (!locationCodes || locationCodes.includes(h.location.code)));
}

/**
 * The consumed holds a return gives back: at those locations, from a warehouse. A
 * print-on-demand hold took nothing off hand: it has nothing to return and stays consumed.
 */
export function returnableHolds(holds: readonly StockHold[], locationCodes?: readonly string[] | null): StockHold[] {
  return holdsAt(holds, 'consumed', locationCodes).filter((h) => h.warehouseId !== null);
}

/** Releasing placed holds (never sent): `held` goes down by their quantities, on hand stays. */
export function release(holds: readonly StockHold[]): LevelDelta[] {
  return plan(holds, new Map(), (h) => ({ held: -h.quantity, onHand: 0, taken: 0 })).deltas;
}

/**
 * The released holds a reinstatement places again: those named (`ids`), unless the order holds
 * the same line at the same location again by now (a later hold replaced it: placing the old one
 * too would hold that line twice).
 */
export function reinstatableHolds(holds: readonly StockHold[], ids: ReadonlySet<string>): StockHold[] {
  const lineAt = (h: StockHold) => `${h.lineNumber}|${h.warehouseId ?? 'pod'}`;
  const heldAgain = new Set(holdsAt(holds, 'placed').map(lineAt));
  return holdsAt(holds, 'released').filter((h) => ids.has(h.id) && !heldAgain.has(lineAt(h)));
}

/**
 * What placing these released holds again would hold beyond what their warehouses can still sell
 * (on hand less what is held there now): the stock may have been sold since the release. Per
 * product that falls short anywhere: what the holds want of it and what their warehouses have.
 * Print-on-demand holds take no stock. Empty: every hold fits.
 */
export function reinstatementShortages(holds: readonly StockHold[], levels: readonly WarehouseStock[]): Shortage[] {
  const wanted = new Map<string, { hold: StockHold; quantity: number }>();
  for (const h of holds) {
    if (h.warehouseId === null) continue;
    const k = levelKey(h.productUuid, h.warehouseId);
    wanted.set(k, { hold: h, quantity: (wanted.get(k)?.quantity ?? 0) + h.quantity });
  }
  const sellable = new Map(levels.map((l) => [levelKey(l.productUuid, l.warehouse.id), Math.max(l.onHand - l.held, 0)]));
  const byProduct = new Map<string, Shortage & { short: boolean }>();
  for (const [k, { hold, quantity }] of wanted) {
    const available = sellable.get(k) ?? 0;
    const p = byProduct.get(hold.productUuid) ?? { productUuid: hold.productUuid, sku: hold.sku, requested: 0, available: 0, short: false };
    p.requested += quantity;
    p.available += available;
    p.short ||= quantity > available;
    byProduct.set(hold.productUuid, p);
  }
  return [...byProduct.values()].filter((p) => p.short).map(({ short: _short, ...shortage }) => shortage);
}

/**
 * What puts an order's placed holds back to exactly `ids` (the holds it had before a hold change
 * that did not commit, which holdStock answers): its placed holds not named are released, its
 * released holds named are placed again, unless a hold that stays placed already holds that line
 * at that location. Applying it twice changes nothing the second time.
 */
export function restoration(holds: readonly StockHold[], ids: ReadonlySet<string>): { release: StockHold[]; reinstate: StockHold[] } {
  const placed = holdsAt(holds, 'placed');
  const release = placed.filter((h) => !ids.has(h.id));
  const staying = placed.filter((h) => ids.has(h.id));
  return { release, reinstate: reinstatableHolds([...staying, ...holdsAt(holds, 'released')], ids) };
}

/**
 * A restoration (`release` released, `reinstate` placed again) as one change of `held` per stock
 * row, in product then warehouse order; rows it leaves where they were are not changed.
 */
export function restorationDeltas(restored: { release: readonly StockHold[]; reinstate: readonly StockHold[] }): LevelDelta[] {
  const releasing = new Set(restored.release.map((h) => h.id));
  const { deltas } = plan([...restored.release, ...restored.reinstate], new Map(), (h) => ({ held: releasing.has(h.id) ? -h.quantity : h.quantity, onHand: 0, taken: 0 }));
  return deltas.filter((d) => d.held !== 0);
}

/** Reinstating released holds (a release undone): `held` goes up by their quantities again, on hand stays. */
export function reinstatement(holds: readonly StockHold[]): LevelDelta[] {
  return plan(holds, new Map(), (h) => ({ held: h.quantity, onHand: 0, taken: 0 })).deltas;
}

/** Consuming placed holds; `onHand` is each stock row's on-hand stock before. */
export function consumption(holds: readonly StockHold[], onHand: ReadonlyMap<string, number>): StockMovePlan {
  return plan(holds, onHand, (h, left) => {
    const taken = Math.min(h.quantity, left);
    return { held: -h.quantity, onHand: negative(taken), taken };
  });
}

/** Returning consumed holds: each gives back what it took. */
export function giveBack(holds: readonly StockHold[], onHand: ReadonlyMap<string, number>): StockMovePlan {
  return plan(holds, onHand, (h) => ({ held: 0, onHand: h.taken, taken: h.taken }));
}

/** The moves of holds that change on-hand stock. */
export type HoldMove =
  | { from: 'placed'; to: 'consumed' }
  | { from: 'consumed'; to: 'returned' | 'placed' }
  | { from: 'returned'; to: 'consumed' };

/**
 * The times a move sets on its holds: `consumedAt` when the stock left, `returnedAt` when it came
 * back; null clears one (a move undone); a time left out stays as it was.
 */
export function holdMoveTimes(move: HoldMove, at: Date): { consumedAt?: Date | null; returnedAt?: Date | null } {
  if (move.to === 'placed') return { consumedAt: null };
  if (move.to === 'returned') return { returnedAt: at };
  return move.from === 'returned' ? { consumedAt: at, returnedAt: null } : { consumedAt: at };
}

/**
 * Undoing a consumption (the change that sent the holds did not commit): each hold is placed again,
 * `held` up by its quantity and on hand up by what it took, so the free stock is what it was.
 */
export function unconsumption(holds: readonly StockHold[], onHand: ReadonlyMap<string, number>): StockMovePlan {
  return plan(holds, onHand, (h) => ({ held: h.quantity, onHand: h.taken, taken: 0 }));
}

/** Re-consuming returned holds: each takes again what it gave back, as far as it is still there. */
export function takeAgain(holds: readonly StockHold[], onHand: ReadonlyMap<string, number>): StockMovePlan {
  return plan(holds, onHand, (h, left) => {
    const taken = Math.min(h.taken, left);
    return { held: 0, onHand: negative(taken), taken };
  });
}

/** -n without a -0 (it would be stored as 0 but compare unequal in tests and logs). */
function negative(n: number): number {
  return n === 0 ? 0 : -n;
}

function plan(
  holds: readonly StockHold[],
  onHand: ReadonlyMap<string, number>,
  effect: (hold: StockHold, onHandLeft: number) => { held: number; onHand: number; taken: number },
): StockMovePlan {
  const deltas = new Map<string, LevelDelta>();
  const moves: OnHandMove[] = [];
  for (const h of holds) {
    if (!h.warehouseId) continue;
    const k = levelKey(h.productUuid, h.warehouseId);
    const d = deltas.get(k) ?? { productUuid: h.productUuid, warehouseId: h.warehouseId, held: 0, onHand: 0 };
    // Earlier holds of this change on the same row count: two lines from one warehouse share it.
    const left = Math.max((onHand.get(k) ?? 0) + d.onHand, 0);
    const e = effect(h, left);
    d.held += e.held;
    d.onHand += e.onHand;
    deltas.set(k, d);
    moves.push({ hold: h, delta: e.onHand, onHandAfter: left + e.onHand, taken: e.taken });
  }
  return { deltas: [...deltas.values()].sort(byProductThenWarehouse), moves };
}

export function byProductThenWarehouse(a: { productUuid: string; warehouseId: string }, b: { productUuid: string; warehouseId: string }): number {
  return a.productUuid < b.productUuid ? -1 : a.productUuid > b.productUuid ? 1 : a.warehouseId < b.warehouseId ? -1 : a.warehouseId > b.warehouseId ? 1 : 0;
}
