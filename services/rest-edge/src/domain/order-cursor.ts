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
