import type { WindowCount } from '../domain/rate-window';
import { ReadAheadLedger } from './read-ahead';

const failedAuth: WindowCount = { count: 0, limit: 60, nowMs: 1_000_000, resetAtMs: 1_060_000 };
const counted = (count: number, resetAtMs = 1_060_000) => ({ failedAuth, tokenBudget: { count, limit: 100, nowMs: 1_000_000, resetAtMs } });

describe('the read-ahead ledger', () => {
  let now = 0;
  const ledger = () => new ReadAheadLedger(2, () => now);
  beforeEach(() => {
    now = 10_000;
  });

  it("reads ahead for a token only once it has seen the token's count", () => {
    const l = ledger();
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(false);
    l.sighted('tok-a', counted(1), now);
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(true);
    expect(l.mayReadAhead('GET', 'tok-b')).toBe(false);
  });

  it('counts the reads ahead in flight against the budget until they settle', () => {
    const l = ledger();
    l.sighted('tok-a', counted(48), now);
    l.started('tok-a');
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(true); // 48 + 1 in flight + this one = 50
    l.started('tok-a');
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(false);
    l.settled('tok-a');
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(true);
  });

  it('keeps the highest count of a window when replies arrive out of order', () => {
    const l = ledger();
    l.sighted('tok-a', counted(60), now);
    l.sighted('tok-a', counted(3), now);
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(false);
    // A new window starts over.
    l.sighted('tok-a', counted(3, 1_120_000), now);
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(true);
  });

  it('stops for the window once the address was found blocked, even if other addresses are counted later', () => {
    const l = ledger();
    l.sighted('tok-a', counted(1), now);
    l.sighted('tok-a', { failedAuth: { ...failedAuth, count: 60 } }, now);
    l.sighted('tok-a', counted(2), now);
    expect(l.mayReadAhead('GET', 'tok-a')).toBe(false);
  });

  it('forgets the oldest token beyond its size', () => {
    const l = ledger();
    l.sighted('tok-a', counted(1), now);
    l.sighted('tok-b', counted(1), now);
    l.sighted('tok-a', counted(2), now);
    l.sighted('tok-c', counted(1), now);
    expect(['tok-a', 'tok-b', 'tok-c'].map((t) => l.mayReadAhead('GET', t))).toEqual([true, false, true]);
  });
});
