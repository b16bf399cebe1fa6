import type { Fulfilment } from './model';
import { isFinished, type FulfilmentStatus, type OrderStatus } from './order-state-machine';

/**
 * What a fulfilment's move does to the stock of its supplier location (one fulfilment per
 * location), as a pure rule. A draft fulfilment's stock is held (placed holds); sending it
 * consumes them (the stock leaves on hand); docs/orders.md, "Stock holds".
 *
 * - `consume`: a draft goes out to its supplier (processing or beyond): its holds are consumed,
 *   as sending the order does. Only a supplier's progress on a `holding` or `error` order does this
 *   to one fulfilment; the order's own send consumes every hold at once.
 * - `release`: a draft ends without being sent (cancelled, failed, or discarded with its order):
 *   its holds are released. Cancelling, saving as draft and rejecting the address release every
 *   hold of the order at once; a supplier cancelling one draft releases its location's.
 * - `return`: a sent fulfilment that was never dispatched (processing, back-order, invalid) is
 *   cancelled or discarded: its consumed stock comes back on hand. Not when it `failed`: what a
 *   failure left on the shelf is unknown (docs/orders.md, "When consumed stock comes back").
 * - null: nothing (a dispatched fulfilment's stock has gone; moves between sent statuses).
 */
export type StockStep = 'consume' | 'release' | 'return';

/** A fulfilment's move: `discarded` = dropped with its order (back before confirmation). */
export interface FulfilmentMove {
  from: FulfilmentStatus;
  to: FulfilmentStatus | 'discarded';
  f: Pick<Fulfilment, 'supplierLocation'>;
}

/** Fulfilments sent and not dispatched: their holds were consumed, the goods are still there. */
const SENT_NOT_DISPATCHED: readonly FulfilmentStatus[] = ['processing', 'back-order', 'invalid'];
/** Where a draft ends without being sent. */
const UNSENT_ENDS: readonly (FulfilmentStatus | 'discarded')[] = ['cancelled', 'failed', 'discarded'];

export function stockStepOf(from: FulfilmentStatus, to: FulfilmentStatus | 'discarded'): StockStep | null {
  if (from === to) return null;
  if (from === 'draft') return UNSENT_ENDS.includes(to) ? 'release' : 'consume';
  if (SENT_NOT_DISPATCHED.includes(from) && (to === 'cancelled' || to === 'discarded')) return 'return';
  return null;
}

/** The supplier location codes of each step these moves take (each once, in code order). */
export function stockStepsOf(moves: readonly FulfilmentMove[]): Record<StockStep, string[]> {
  const steps: Record<StockStep, Set<string>> = { consume: new Set(), release: new Set(), return: new Set() };
  for (const m of moves) {
    const step = stockStepOf(m.from, m.to);
    if (step) steps[step].add(m.f.supplierLocation.code);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return { consume: sorted(steps.consume), release: sorted(steps.release), return: sorted(steps.return) };
}

/** Fulfilments that reached their supplier and were not cancelled: the goods left on hand with them. */
const SENT: readonly FulfilmentStatus[] = ['processing', 'back-order', 'invalid', 'dispatched', 'returned', 'failed'];

/**
 * When an order's holds are settled as a whole, and how. An order with fulfilments holds stock
 * only for its drafts (each draft's location); once no draft is left, or the order has ended
 * (complete, partial, failed, cancelled, returned), it promises no stock any more, whichever path
 * got it there. Its remaining holds are then settled: at the location of a fulfilment that was
 * sent (and not cancelled) the goods went, so they are consumed, as sending does; every other
 * hold is released. On the usual paths only released holds are left by then: the sent ones were
 * consumed when sent; an order changed before these rules may have either. Null: nothing to
 * settle (no stock held, or a draft or an order without fulfilments still counting on it).
 */
export function settlementOf(next: {
  status: OrderStatus;
  stockHeld: boolean;
  fulfilments: readonly Pick<Fulfilment, 'status' | 'supplierLocation'>[];
}): { consume: string[] } | null {
  if (!next.stockHeld) return null;
  const stillCounting = next.fulfilments.length === 0 || next.fulfilments.some((f) => f.status === 'draft');
  if (stillCounting && !isFinished(next.status)) return null;
  const consume = new Set(next.fulfilments.filter((f) => SENT.includes(f.status)).map((f) => f.supplierLocation.code));
  return { consume: [...consume].sort() };
}
