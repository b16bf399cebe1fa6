import type { OrderLine } from './model';
import { isFinished, somethingSent, type OrderState } from './order-state-machine';

/**
 * Stable reason codes of an `amendment-refused` problem (rule O5). Only `being-rebuilt` and
 * `unexpected-error` are worth retrying.
 * - `fulfilment-underway`: a fulfilment already reached a supplier (the order is processing or beyond),
 *   or is being sent now (a queued or scheduled order past its `fulfillableFrom`);
 * - `stock-held`: the wanted lines cannot be held: the stock they need is held for other orders
 *   (the order keeps its lines and holds; `shortSkus` lists what is missing);
 * - `being-rebuilt`: another change of the order (an amendment, a confirmation) is rebuilding it
 *   right now; retry shortly;
 * - `unexpected-error`: something failed on our side (e.g. the stock service did not answer); retry;
 * - `order-not-amendable` (ours): the order is in a status that is never amended (cancelled,
 *   holding, finished) although nothing reached a supplier, or the amendment would leave a
 *   confirmed order without lines (cancel it instead).
 */
export const AMENDMENT_REFUSAL_REASONS = ['stock-held', 'fulfilment-underway', 'being-rebuilt', 'unexpected-error', 'order-not-amendable'] as const;
export type AmendmentRefusalReason = (typeof AMENDMENT_REFUSAL_REASONS)[number];

export interface AmendmentRefusal {
  reason: AmendmentRefusalReason;
  /** For the merchant's user, safe to show. */
  merchantMessage: string;
  /** For the developer. */
  detail: string;
}

export const MERCHANT_MESSAGES: Record<AmendmentRefusalReason, string> = {
  'stock-held': 'There is not enough stock for the changed lines; the order was left as it was.',
  'fulfilment-underway': 'The order has already been sent to a supplier and can no longer be changed.',
  'being-rebuilt': 'The order is being updated right now; please try again in a moment.',
  'unexpected-error': 'The order could not be changed because of a temporary problem; please try again.',
  'order-not-amendable': 'The order can no longer be changed in its current state.',
};

export function refusal(reason: AmendmentRefusalReason, detail: string): AmendmentRefusal {
  return { reason, merchantMessage: MERCHANT_MESSAGES[reason], detail };
}

/**
 * Rule O5 acceptance on the order's state: accepted (null) only while the order is draft, queued
 * or scheduled and every fulfilment is still a draft, and, queued or scheduled, before its
 * `fulfillableFrom` (section 2: it "tells how long the order can still be amended"; the timer that
 * sends the order may run a moment later).
 */
export function amendmentRefusal(order: OrderState, timing: { fulfillableFrom: Date; now: Date }): AmendmentRefusal | null {
  // A cancellation cancels the open fulfilments too: they reached no supplier for it.
  if (order.status === 'cancelled') return refusal('order-not-amendable', 'The order is cancelled.');
  if (somethingSent(order) || ['processing', 'back-order'].includes(order.status)) {
    return refusal('fulfilment-underway', `A fulfilment of the order has reached a supplier (order status ${order.status}).`);
  }
  if (!['draft', 'queued', 'scheduled'].includes(order.status)) {
    return refusal(
      'order-not-amendable',
      isFinished(order.status) ? `The order is finished (status ${order.status}).` : `An order in status ${order.status} cannot be amended.`,
    );
  }
  if (order.status !== 'draft' && timing.now.getTime() >= timing.fulfillableFrom.getTime()) {
    return refusal('fulfilment-underway', `The order's time to be sent to its supplier came at ${timing.fulfillableFrom.toISOString()}.`);
  }
  return null;
}

export interface AmendedLine {
  lineNumber: number;
  sku: string;
  previousSku: string | null;
  quantityBefore: number | null;
  quantityAfter: number | null;
}

export interface LineDiff {
  addedLines: AmendedLine[];
  removedLines: AmendedLine[];
  changedLines: AmendedLine[];
  unchangedLineNumbers: number[];
}

/** Compares the order's lines with the wanted set, matched on line number. */
export function diffLines(before: readonly OrderLine[], after: readonly OrderLine[]): LineDiff {
  const old = new Map(before.map((l) => [l.lineNumber, l]));
  const diff: LineDiff = { addedLines: [], removedLines: [], changedLines: [], unchangedLineNumbers: [] };
  for (const line of [...after].sort((a, b) => a.lineNumber - b.lineNumber)) {
    const was = old.get(line.lineNumber);
    old.delete(line.lineNumber);
    if (!was) diff.addedLines.push({ lineNumber: line.lineNumber, sku: line.sku, previousSku: null, quantityBefore: null, quantityAfter: line.quantity });
    else if (was.sku !== line.sku || was.quantity !== line.quantity) {
      diff.changedLines.push({
        lineNumber: line.lineNumber,
        sku: line.sku,
        previousSku: was.sku !== line.sku ? was.sku : null,
        quantityBefore: was.quantity,
        quantityAfter: line.quantity,
      });
    } else diff.unchangedLineNumbers.push(line.lineNumber);
  }
  for (const was of [...old.values()].sort((a, b) => a.lineNumber - b.lineNumber)) {
    diff.removedLines.push({ lineNumber: was.lineNumber, sku: was.sku, previousSku: null, quantityBefore: was.quantity, quantityAfter: null });
  }
  return diff;
}
