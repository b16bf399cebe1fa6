import { budgetExceeded, budgetHeaders, exceededHeaders, failuresExhausted, windowAt } from './rate-window';

const w = (count: number, limit: number, nowMs = 120_500, resetAtMs = 180_000) => ({ count, limit, nowMs, resetAtMs });

describe('fixed windows', () => {
  it('aligns windows on multiples of their length', () => {
    expect(windowAt(0, 60_000)).toEqual({ index: 0, resetAtMs: 60_000 });
    expect(windowAt(59_999, 60_000)).toEqual({ index: 0, resetAtMs: 60_000 });
    expect(windowAt(60_000, 60_000)).toEqual({ index: 1, resetAtMs: 120_000 });
  });

  it('exhausts the failed-request budget once a failure exceeds the limit (the 61st failure, and every request after)', () => {
    expect(failuresExhausted(w(60, 60))).toBe(false);
    expect(failuresExhausted(w(61, 60))).toBe(true);
  });

  it('refuses the request that takes the token count over the limit (the 601st)', () => {
    expect(budgetExceeded(w(600, 600))).toBe(false);
    expect(budgetExceeded(w(601, 600))).toBe(true);
  });

  it('reports the remaining budget, never below zero', () => {
    expect(budgetHeaders(w(1, 600))).toEqual({ 'X-RateLimit-Limit': '600', 'X-RateLimit-Remaining': '599' });
    expect(budgetHeaders(w(600, 600))['X-RateLimit-Remaining']).toBe('0');
    expect(budgetHeaders(w(700, 600))['X-RateLimit-Remaining']).toBe('0');
  });

  it('gives a 429 the four headers: seconds to the window end, the limit, 0 remaining, the end in Unix seconds', () => {
    expect(exceededHeaders(w(601, 600, 120_500, 180_000))).toEqual({
      'Retry-After': '60',
      'X-RateLimit-Limit': '600',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '180',
    });
    // Never "0 seconds": the window is still open for a few milliseconds.
    expect(exceededHeaders(w(61, 60, 179_990, 180_000))['Retry-After']).toBe('1');
  });
});
