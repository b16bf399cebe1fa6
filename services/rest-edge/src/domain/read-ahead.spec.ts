import type { WindowCount } from './rate-window';
import { mayReadAhead, READ_AHEAD_MAX_IN_FLIGHT, sightingOf, type BudgetSighting } from './read-ahead';

/** A token seen at `count` of `limit`, 30 s before its window ends (store clock 1 000 000 ms), sent at 5 000 on the edge's clock. */
const seen = (count: number, limit = 100, msLeft = 30_000): BudgetSighting => ({
  window: { count, limit, nowMs: 1_000_000, resetAtMs: 1_000_000 + msLeft },
  sentAtMs: 5_000,
});
const ask = (over: Partial<Parameters<typeof mayReadAhead>[0]> = {}) =>
  mayReadAhead({ method: 'GET', sighting: seen(10), inFlight: 0, nowMs: 6_000, ...over });

describe('reading ahead of admission', () => {
  it('lets a read go ahead for a token seen well under its budget in the current window', () => {
    expect(ask()).toBe(true);
    expect(ask({ method: 'HEAD' })).toBe(true);
  });

  it('never for a request that may change something upstream', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(ask({ method })).toBe(false);
  });

  it('never without a sighting of the token (its first request, or one the edge forgot)', () => {
    expect(ask({ sighting: undefined })).toBe(false);
  });

  it('only up to half the limit, counting the reads already ahead: this one would be count + in flight + 1', () => {
    expect(ask({ sighting: seen(49), inFlight: 0 })).toBe(true); // the 50th of 100
    expect(ask({ sighting: seen(50), inFlight: 0 })).toBe(false);
    expect(ask({ sighting: seen(40), inFlight: 9 })).toBe(true);
    expect(ask({ sighting: seen(40), inFlight: 10 })).toBe(false);
    expect(ask({ sighting: seen(0, 1) })).toBe(false); // a limit of 1 leaves no room
    expect(ask({ sighting: seen(101) })).toBe(false); // refused last time
  });

  it(`never more than ${READ_AHEAD_MAX_IN_FLIGHT} reads ahead in flight per token, whatever the budget`, () => {
    const large = seen(0, 1_000_000);
    expect(ask({ sighting: large, inFlight: READ_AHEAD_MAX_IN_FLIGHT - 1 })).toBe(true);
    expect(ask({ sighting: large, inFlight: READ_AHEAD_MAX_IN_FLIGHT })).toBe(false);
  });

  it("judges the window's end on the edge's own clock, from the time it had left when counted", () => {
    // Sent at 5 000 with 30 000 ms left: the window ends at 35 000 on the edge's clock, whatever the store's clock reads.
    expect(ask({ nowMs: 34_999 })).toBe(true);
    expect(ask({ nowMs: 35_000 })).toBe(false);
    expect(ask({ nowMs: 90_000 })).toBe(false);
  });
});

describe('the sighting an admission gives', () => {
  const failedAuth: WindowCount = { count: 60, limit: 60, nowMs: 1_000_000, resetAtMs: 1_020_000 };

  it("is the token's count when it was counted", () => {
    const tokenBudget: WindowCount = { count: 7, limit: 600, nowMs: 1_000_000, resetAtMs: 1_020_000 };
    expect(sightingOf({ failedAuth, tokenBudget }, 42)).toEqual({ window: tokenBudget, sentAtMs: 42 });
  });

  it('is a spent budget until the window ends when the address was blocked (nothing counted)', () => {
    const sighting = sightingOf({ failedAuth }, 42);
    expect(sighting.window.count).toBe(Number.POSITIVE_INFINITY);
    expect(mayReadAhead({ method: 'GET', sighting, inFlight: 0, nowMs: 43 })).toBe(false);
    // Once the window is over the rule asks for a new sighting anyway.
    expect(mayReadAhead({ method: 'GET', sighting, inFlight: 0, nowMs: 42 + 20_000 })).toBe(false);
  });
});
