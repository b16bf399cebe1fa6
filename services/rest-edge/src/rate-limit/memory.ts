import { failuresExhausted, windowAt, type WindowCount } from '../domain/rate-window';
import type { RateLimiter, RateLimits } from './rate-limiter';

/**
 * Counters in this process's memory, for the embedded wiring where one process serves
 * everything. Same semantics as the Redis limiter (fixed windows aligned on the epoch); NOT
 * shared between replicas, so production uses Redis.
 */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, number>();
  private currentWindow = -1;

  constructor(
    readonly limits: RateLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  async peekFailedAuth(ip: string): Promise<WindowCount> {
    const now = this.enterWindow();
    return this.count(`ip:${ip}`, this.limits.failedAuthPerIp, now, 0);
  }

  async recordFailedAuth(ip: string): Promise<{ recorded: boolean; failedAuth: WindowCount }> {
    const now = this.enterWindow();
    const current = this.counts.get(`ip:${ip}`) ?? 0;
    if (current > this.limits.failedAuthPerIp) {
      return { recorded: false, failedAuth: this.count(`ip:${ip}`, this.limits.failedAuthPerIp, now, 0) };
    }
    return { recorded: true, failedAuth: this.count(`ip:${ip}`, this.limits.failedAuthPerIp, now, 1) };
  }

  async admit(ip: string, tokenId: string): Promise<{ failedAuth: WindowCount; tokenBudget?: WindowCount }> {
    const now = this.enterWindow();
    const failedAuth = this.count(`ip:${ip}`, this.limits.failedAuthPerIp, now, 0);
    if (failuresExhausted(failedAuth)) return { failedAuth };
    return { failedAuth, tokenBudget: this.count(`tok:${tokenId}`, this.limits.perToken, now, 1) };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.counts.clear();
  }

  /** Starts a fresh window when the clock has moved past the current one; returns now. */
  private enterWindow(): number {
    const now = this.clock();
    const { index } = windowAt(now, this.limits.windowMs);
    if (index !== this.currentWindow) {
      this.counts.clear();
      this.currentWindow = index;
    }
    return now;
  }

  private count(key: string, limit: number, now: number, add: number): WindowCount {
    const count = (this.counts.get(key) ?? 0) + add;
    if (add) this.counts.set(key, count);
    return { limit, count, nowMs: now, resetAtMs: windowAt(now, this.limits.windowMs).resetAtMs };
  }
}
