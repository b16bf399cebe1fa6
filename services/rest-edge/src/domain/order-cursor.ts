import { decodePosition, encodePosition } from '@pf/platform/cursor';

/** An order's place in `updated-asc` order: what `GET /orders?after=` continues from. */
export interface OrderChangePosition {
  /** ISO 8601, to the millisecond, as the orders service gives it. */
  updatedAt: string;
  uuid: string;
}

/** The cursor of `meta.next_cursor` (opaque: @pf/platform/cursor). */
export function encodeOrderCursor(position: OrderChangePosition): string {
  return encodePosition({ at: new Date(position.updatedAt), uuid: position.uuid });
}

/** The position a cursor stands for, or undefined when it is not one this API gave. */
export function decodeOrderCursor(cursor: string): OrderChangePosition | undefined {
  const position = decodePosition(cursor);
  return position && { updatedAt: position.at.toISOString(), uuid: position.uuid };
}

/**
 * Where `next_cursor` points after a page in change order: its last order changed at least
 * `settleMs` before `now` (the page is in `updatedAt` order, so those come first), else where the
 * request started (`after`, or nothing). An order's `updatedAt` is stamped when its change starts
 * and becomes visible when it commits, up to `settleMs` later: a cursor past a more recent order
 * could leave such a change behind it for good. The recent orders are answered all the same, and
 * again on the next read.
 */
export function nextOrderCursor(
  items: readonly OrderChangePosition[],
  after: string | undefined,
  now: number,
  settleMs: number,
): string | null {
  const settled = items.filter((o) => Date.parse(o.updatedAt) <= now - settleMs);
  const last = settled[settled.length - 1];
  return last ? encodeOrderCursor(last) : (after ?? null);
}
