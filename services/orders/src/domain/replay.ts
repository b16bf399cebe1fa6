import { FINISHED_ORDER_STATUSES, IN_PROGRESS_STATUSES, type OrderStatus } from './order-state-machine';

/** What `POST /orders` does when the channel already has an order with the same orderNumber. */
export type ReplayDecision =
  /** 201: the order is replaced by what was sent. */
  | 'replace'
  /** 409 `order-already-confirmed`: treat as success, do not resend; the order is unchanged. */
  | 'order-already-confirmed'
  /** 409 `order-not-updatable`: a real conflict, do not retry; the order is unchanged. */
  | 'order-not-updatable';

/**
 * Rule O2, in the spec's order of checks:
 * 1. finished (complete, cancelled, failed, returned, partial), even if once confirmed -> not updatable;
 * 2. a draft, or an order held before confirmation (holding with confirmedAt null) -> replaced;
 * 3. confirmed and in progress (queued, scheduled, processing, holding, back-order, error; queued
 *    is the one counting down to processing) -> already confirmed;
 * 4. anything else (invalid, or a status this version does not know) is "otherwise not
 *    changeable" -> not updatable.
 */
export function replayDecision(existing: { status: OrderStatus | string; confirmedAt: Date | null }): ReplayDecision {
  const status = existing.status as OrderStatus;
  if (FINISHED_ORDER_STATUSES.includes(status)) return 'order-not-updatable';
  if (status === 'draft') return 'replace';
  if (status === 'holding' && existing.confirmedAt === null) return 'replace';
  if (IN_PROGRESS_STATUSES.includes(status)) return 'order-already-confirmed';
  return 'order-not-updatable';
}
