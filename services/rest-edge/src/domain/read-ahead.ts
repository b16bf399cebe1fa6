import type { WindowCount } from './rate-window';

/**
 * Reading ahead of admission: for a safe read whose credentials passed checks 1-6 from the
 * credentials cache, the edge may send the upstream read while the rate-limit step (check 7) is
 * still on its way, and answer only once it admitted; a refusal is answered as always and the
 * read's result dropped. The answers, the headers and the counting are those of the plain path;
 * what changes is that a refused read may have reached the gateway. These rules keep that rare
 * and bounded:
 *
 * - only reads (`GET`, `HEAD`): nothing upstream changes because of a request later refused;
 * - only while the token's own count, as the edge last saw it in the current window, plus the
 *   reads it has ahead in flight, is at most half its limit: a refusal then needs the other half
 *   spent elsewhere (other replicas) since that sighting, and once one is seen the edge stops;
 * - at most `READ_AHEAD_MAX_IN_FLIGHT` reads ahead in flight per token: so, per edge replica, at
 *   most that many refused reads reach the gateway per token and window;
 * - never on the first request of a window (no sighting yet in it);
 * - not for the rest of the window once an admission of the token found its address blocked
 *   (check 1): such a refusal does not count the token, so its count alone would not stop it.
 */
export const READ_AHEAD_MAX_IN_FLIGHT = 16;

/** Share of the token's limit up to which reads may go ahead of admission. */
export const READ_AHEAD_BUDGET_SHARE = 0.5;

/** What the edge last learnt of a token's count: the reply to its last admission. */
export interface BudgetSighting {
  /** The token's window as counted then (Redis's clock). */
  window: WindowCount;
  /**
   * The edge's own clock when that admission was sent. The window's end is judged as this plus
   * the time it had left by the store's clock: no clock of another host is compared with the
   * edge's, and as the count was read after the send, the window is taken to end no later than it does.
   */
  sentAtMs: number;
}

export interface ReadAheadFacts {
  method: string;
  /** The token's last sighting, if any. */
  sighting: BudgetSighting | undefined;
  /** The token's reads ahead of admission now in flight on this edge. */
  inFlight: number;
  /** The edge's clock now. */
  nowMs: number;
}

export function mayReadAhead(f: ReadAheadFacts): boolean {
  if (f.method !== 'GET' && f.method !== 'HEAD') return false;
  if (!f.sighting || f.inFlight >= READ_AHEAD_MAX_IN_FLIGHT) return false;
  const { window, sentAtMs } = f.sighting;
  const windowEndsAtMs = sentAtMs + (window.resetAtMs - window.nowMs);
  if (f.nowMs >= windowEndsAtMs) return false;
  return window.count + f.inFlight + 1 <= window.limit * READ_AHEAD_BUDGET_SHARE;
}

/**
 * The sighting an admission's reply gives. A reply without the token's count (the address was
 * blocked, nothing counted) is taken as a spent budget until the window ends: the two counters'
 * windows have the same length and bounds.
 */
export function sightingOf(reply: { failedAuth: WindowCount; tokenBudget?: WindowCount }, sentAtMs: number): BudgetSighting {
  return { window: reply.tokenBudget ?? { ...reply.failedAuth, count: Number.POSITIVE_INFINITY }, sentAtMs };
}
