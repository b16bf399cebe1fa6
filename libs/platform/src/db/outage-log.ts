import { LogThrottle, type Logger } from '../logging';
import { isDatabaseUnavailable } from './unreachable';

/**
 * How a loop of background work (an outbox relay, a timer or window worker) reports a failed
 * round: the database out of reach or too busy at warn, one line per 10 s (the loop tries again
 * every second or so while the outage lasts, and one line says as much as hundreds), with the count
 * held back; anything else at error, every time.
 */
export class LoopFailureLog {
  private readonly outages: LogThrottle;

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly msg: string,
    now: () => number = Date.now,
  ) {
    this.outages = new LogThrottle(10_000, now);
  }

  failed(err: unknown, context: Record<string, unknown> = {}): void {
    if (!isDatabaseUnavailable(err)) {
      this.logger.error({ err, ...context }, this.msg);
      return;
    }
    const logged = this.outages.take();
    if (logged) this.logger.warn({ err, ...context, suppressed: logged.suppressed }, `${this.msg}: database unavailable (one line per 10 s)`);
  }
}
