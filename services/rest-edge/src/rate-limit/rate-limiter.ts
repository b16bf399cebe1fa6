import type { WindowCount } from '../domain/rate-window';

/** The two limits of spec section 8, over fixed windows of one length. */
export interface RateLimits {
  /** Authenticated requests per token per window. */
  perToken: number;
  /** Failed-authentication (401) requests per client address per window. */
  failedAuthPerIp: number;
  windowMs: number;
}

/**
 * Rate-limit counters. Every method is atomic: concurrent requests on any number of edge
 * replicas sharing the store never count past a limit unnoticed. Counters are never cached.
 */
export interface RateLimiter {
  readonly limits: RateLimits;
  /** The address's failed requests in the current window (no change). */
  peekFailedAuth(ip: string): Promise<WindowCount>;
  /**
   * Counts a failed (401) request of the address, unless its budget was already exceeded; then
   * nothing is counted and `recorded` is false. Either way, a count over the limit is answered 429
   * (the failure that exceeds the budget included).
   */
  recordFailedAuth(ip: string): Promise<{ recorded: boolean; failedAuth: WindowCount }>;
  /**
   * Counts an authenticated request against its token, unless the address's failed-request
   * budget is exceeded (checked in the same atomic step, because that check comes first); then
   * nothing is counted and `tokenBudget` is absent.
   */
  admit(ip: string, tokenId: string): Promise<{ failedAuth: WindowCount; tokenBudget?: WindowCount }>;
  /** Throws when the store cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
