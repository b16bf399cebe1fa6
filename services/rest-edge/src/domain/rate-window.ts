/**
 * A count in one fixed rate-limit window, as read or incremented by a rate limiter.
 * Windows are aligned on multiples of their length since the Unix epoch, so every edge replica
 * (and Redis) agrees on where a window starts and ends.
 */
export interface WindowCount {
  /** The limit that applies to this counter. */
  limit: number;
  /** Requests counted in the window so far (including the current one, once counted). */
  count: number;
  /** When the window ends (ms since the epoch); a multiple of the window length. */
  resetAtMs: number;
  /** The clock the count was read with (Redis's clock for the Redis limiter). */
  nowMs: number;
}

/** The window a moment falls into: its index and end. */
export function windowAt(nowMs: number, windowMs: number): { index: number; resetAtMs: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, resetAtMs: (index + 1) * windowMs };
}

/**
 * Failed-authentication budget (spec section 8: "once exceeded every request from that address
 * answers 429"): `limit` failures are allowed; the failure that exceeds it (recorded, answered 429)
 * and every later request is refused.
 */
export function failuresExhausted(w: WindowCount): boolean {
  return w.count > w.limit;
}

/** Token budget: the request that made `count` exceed `limit` and every later one is refused. */
export function budgetExceeded(w: WindowCount): boolean {
  return w.count > w.limit;
}

/** `X-RateLimit-Limit` / `X-RateLimit-Remaining` of a successful (counted) request. */
export function budgetHeaders(w: WindowCount): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(w.limit),
    'X-RateLimit-Remaining': String(Math.max(0, w.limit - w.count)),
  };
}

/**
 * The four headers of a 429 (spec section 8): the exceeded limit, nothing remaining, seconds to
 * wait until the window ends (at least 1), and the window end as Unix seconds.
 */
export function exceededHeaders(w: WindowCount): Record<string, string> {
  const retryAfter = Math.max(1, Math.ceil((w.resetAtMs - w.nowMs) / 1000));
  return {
    'Retry-After': String(retryAfter),
    'X-RateLimit-Limit': String(w.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil(w.resetAtMs / 1000)),
  };
}
