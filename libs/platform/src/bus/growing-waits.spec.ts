import { attemptWithGrowingWaits, growingWait, wakeableDelay } from './growing-waits';

describe('growingWait', () => {
  it('starts at the minimum, doubles after each failure and stops at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => growingWait(n, 1000, 30_000))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('stays finite however many failures there were', () => {
    expect(growingWait(10_000, 200, 30_000)).toBe(30_000);
  });
});

describe('wakeableDelay', () => {
  it('ends when woken, long before its time, and clears the wake function afterwards', async () => {
    let wake: (() => void) | undefined;
    const started = Date.now();
    const waiting = wakeableDelay(60_000, (w) => (wake = w));
    expect(wake).toBeDefined();
    wake!();
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(wake).toBeUndefined();
  });
});

describe('attemptWithGrowingWaits', () => {
  const quick = { minDelayMs: 1, maxDelayMs: 4, setWake: () => undefined };

  it('answers the first success and its attempt number, reporting each failure with the wait before the next', async () => {
    const failures: [number, number][] = [];
    let calls = 0;
    const result = await attemptWithGrowingWaits(
      async (n) => {
        calls++;
        if (n < 4) throw new Error(`down ${n}`);
        return 'joined';
      },
      { ...quick, isStopped: () => false, onFailure: (_err, n, wait) => failures.push([n, wait]) },
    );
    expect(result).toEqual({ value: 'joined', attempt: 4 });
    expect(calls).toBe(4);
    expect(failures).toEqual([
      [1, 1],
      [2, 2],
      [3, 4],
    ]);
  });

  it('makes no further attempt once stopped, and a stop during a wait ends the wait', async () => {
    let stopped = false;
    let wake: (() => void) | undefined;
    let calls = 0;
    const running = attemptWithGrowingWaits(
      async () => {
        calls++;
        throw new Error('down');
      },
      { minDelayMs: 60_000, maxDelayMs: 60_000, isStopped: () => stopped, onFailure: () => undefined, setWake: (w) => (wake = w) },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    stopped = true;
    wake!();
    await expect(running).resolves.toBeUndefined();
    expect(calls).toBe(1);
  });

  it('does not report a failure that happened after the stop', async () => {
    let stopped = false;
    const onFailure = jest.fn();
    const result = await attemptWithGrowingWaits(
      async () => {
        stopped = true;
        throw new Error('torn down by the stop');
      },
      { ...quick, isStopped: () => stopped, onFailure },
    );
    expect(result).toBeUndefined();
    expect(onFailure).not.toHaveBeenCalled();
  });
});
