/**
 * A wait of `ms` that ends early when the function handed to `setWake` is called (a stopping
 * subscription does not sit out a backoff). `setWake(undefined)` once the wait is over.
 */
export async function wakeableDelay(ms: number, setWake: (wake: (() => void) | undefined) => void): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      resolve();
    }
    setWake(done);
  });
  setWake(undefined);
}

/** The wait after the `failures`-th failed attempt in a row: `minDelayMs`, doubled each time, at most `maxDelayMs`. */
export function growingWait(failures: number, minDelayMs: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

export interface GrowingWaitsOptions {
  minDelayMs: number;
  maxDelayMs: number;
  /** Checked before each attempt and after a failure: once true, no further attempt is made. */
  isStopped(): boolean;
  /** A failed attempt, with the wait before the next one (not called once stopped). */
  onFailure(err: unknown, attempt: number, retryInMs: number): void;
  /** Receives the function that cuts the current wait short (undefined when no wait is under way). */
  setWake(wake: (() => void) | undefined): void;
}

/**
 * Runs `attempt` until it succeeds or the caller stops, with growing waits between failures (joining
 * a consumer group while the broker is away). Answers what the successful attempt answered and its
 * number, or undefined when stopped first.
 */
export async function attemptWithGrowingWaits<T>(
  attempt: (n: number) => Promise<T>,
  opts: GrowingWaitsOptions,
): Promise<{ value: T; attempt: number } | undefined> {
  for (let n = 1; !opts.isStopped(); n++) {
    try {
      return { value: await attempt(n), attempt: n };
    } catch (err) {
      if (opts.isStopped()) return undefined;
      const delay = growingWait(n, opts.minDelayMs, opts.maxDelayMs);
      opts.onFailure(err, n, delay);
      await wakeableDelay(delay, opts.setWake);
    }
  }
  return undefined;
}
