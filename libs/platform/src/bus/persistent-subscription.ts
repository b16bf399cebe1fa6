import type { Logger } from '../logging';
import type { Subscription } from './bus';
import { attemptWithGrowingWaits } from './growing-waits';

export interface PersistentSubscriptionOptions {
  /** What the subscription is, for the log. */
  name: string;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** First wait after a failed attempt; doubled after each further one, up to `maxDelayMs`. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /**
   * How long `stop` waits for an attempt under way (the client may be retrying a broker that is
   * down); the attempt stops what it made when it ends. Default 2 s: a shutdown has its own limit.
   */
  stopWaitMs?: number;
}

/**
 * A subscription that does not hold its service up: `subscribe` is tried at once and, while the
 * broker cannot be reached, again with growing waits, until it succeeds or the subscription is
 * stopped. A service starts and serves without the broker (its changes wait in its outbox, the
 * relay retries), so a process started during a broker outage must not die because its consumers
 * cannot join their groups yet: its read models catch up once they do.
 *
 * `firstAttempt` settles when the first attempt has (joined, or failed and retrying): a caller that
 * awaits it starts as before when the broker is there. `subscribed` settles once an attempt
 * succeeded (or the subscription was stopped first).
 */
export function persistentSubscription(
  subscribe: () => Promise<Subscription>,
  opts: PersistentSubscriptionOptions,
): Subscription & { firstAttempt: Promise<void>; subscribed: Promise<void> } {
  const minDelay = opts.minDelayMs ?? 1000;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  let stopped = false;
  let current: Subscription | undefined;
  let wake: (() => void) | undefined;
  let firstAttemptDone!: () => void;
  const firstAttempt = new Promise<void>((resolve) => (firstAttemptDone = resolve));

  const attempts = (async () => {
    const joined = await attemptWithGrowingWaits(subscribe, {
      minDelayMs: minDelay,
      maxDelayMs: maxDelay,
      isStopped: () => stopped,
      onFailure: (err, attempt, retryInMs) => {
        firstAttemptDone();
        opts.logger.warn({ err, subscription: opts.name, attempt, retryInMs }, 'could not subscribe (broker unreachable?); trying again');
      },
      setWake: (w) => (wake = w),
    });
    if (!joined) return;
    if (stopped) await joined.value.stop();
    else {
      current = joined.value;
      if (joined.attempt > 1) opts.logger.info({ subscription: opts.name, attempt: joined.attempt }, 'subscribed after the broker could be reached again');
    }
  })().finally(() => firstAttemptDone());

  return {
    firstAttempt,
    subscribed: attempts,
    async stop() {
      stopped = true;
      wake?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([attempts, new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.stopWaitMs ?? 2000)))]);
      clearTimeout(timer);
      // Taken before awaiting, so that two stops do not stop it twice.
      const subscribed = current;
      current = undefined;
      await subscribed?.stop();
    },
  };
}
