import { jest } from '@jest/globals';

/**
 * Runs `work` with this process's `Date` running `aheadMs` ahead, timers untouched: a replica whose
 * clock is off, for tests of what a service stamps with a clock. The real clock is back afterwards.
 */
export async function withClockAhead<T>(aheadMs: number, work: () => Promise<T>): Promise<T> {
  jest.useFakeTimers({
    now: Date.now() + aheadMs,
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
  try {
    return await work();
  } finally {
    jest.useRealTimers();
  }
}
