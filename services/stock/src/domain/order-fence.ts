import type { Violation } from '@pf/platform/problems';

/**
 * The order fence (migration 0005, docs/stock.md "The order fence"): the orders service names each change
 * of an order that calls stock with a token from one ever-growing sequence. A change that finds an
 * earlier change of the order unfinished raises the order's fence to its own token before it puts
 * the order's holds right; from then on a call carrying a lower token (the earlier change's, still
 * on its way) is refused, as is a call carrying none, and the repair cannot be undone behind its back.
 */

/** Fence tokens are positive 64-bit integers, sent as decimal strings (GraphQL's Int has 32 bits). */
const MAX_FENCE = 2n ** 63n - 1n;

export function fenceViolations(fence: string | null | undefined, property: string): Violation[] {
  if (fence === null || fence === undefined) return [];
  return /^[1-9][0-9]{0,18}$/.test(fence) && BigInt(fence) <= MAX_FENCE
    ? []
    : [{ property, message: 'A fence token: a positive whole number, in decimal.' }];
}

export type FenceCheck =
  | { kind: 'pass' }
  /** The call's change was overtaken: a later change of the order raised the fence. */
  | { kind: 'stale'; fence: bigint; call: bigint | null };

/**
 * Whether a call of an order's change may act. `raised`: the order's fence (null: never raised);
 * `call`: the call's token (null: none sent). An order never fenced lets every call through; a
 * fenced one only calls at or above its fence (the change that raised it, and later ones).
 */
export function checkFence(raised: bigint | null, call: bigint | null): FenceCheck {
  if (raised === null) return { kind: 'pass' };
  if (call !== null && call >= raised) return { kind: 'pass' };
  return { kind: 'stale', fence: raised, call };
}
