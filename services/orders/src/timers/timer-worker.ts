import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '@pf/platform/logging';
import { ScrapedGauge } from '@pf/platform/metrics';
import { Problem } from '@pf/platform/problems';
import { isDatabaseUnavailable } from '@pf/platform/db/unreachable';
import { StockUnavailableError } from '../adapters/stock-client';
import { claimDueTimers, releaseAfterFailure, type ClaimedTimer } from '../repositories/timer-repository';
import type { OrdersDeps } from '../use-cases/deps';
import { fireTimer } from '../use-cases/fire-timer';
import { eachConcurrently } from './each-concurrently';
import { LoopFailureLog } from '@pf/platform/db/outage-log';

export interface TimerWorkerOptions {
  pollMs: number;
  leaseMs: number;
  batch: number;
  /** Claimed timers fired at once: one at a time, a replica sent fewer orders a second than a busy shop confirms. */
  concurrency: number;
  /** Failed attempts before the order could not be sent (`holding`); failures that pass (isTransientFailure) never end it. */
  maxAttempts: number;
  logger: Logger;
}

/** Read at each scrape: orders whose countdown or schedule ended over a minute ago and are still not sent. */
const overdueTimers = new ScrapedGauge({
  name: 'pf_order_timers_overdue',
  help: 'Order timers (countdowns and schedules) due more than a minute ago and not yet fired: orders stuck before processing.',
  // A label, so that a failed read leaves the series out rather than reading 0.
  labelNames: ['schema'] as const,
});

/**
 * The durable timers' worker (ARCHITECTURE.md principle 3), started and stopped with the service:
 * every `pollMs` it claims due timers (SKIP LOCKED, with a lease) and moves their orders to
 * processing. A failed move is retried with a growing wait (at most the lease); after `maxAttempts`
 * a failure that will not pass by itself means the order could not be sent (`holding`). Rows live
 * in Postgres, so a restart or a second replica neither loses nor doubles one.
 */
export class TimerWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private removeMetricSource?: () => void;
  private readonly claimFailures: LoopFailureLog;

  constructor(
    private readonly deps: OrdersDeps,
    private readonly opts: TimerWorkerOptions,
  ) {
    this.claimFailures = new LoopFailureLog(opts.logger, 'order timer worker could not claim timers');
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.removeMetricSource = overdueTimers.addSource(async () => {
      const { rows } = await this.deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders.order_timer WHERE due_at < now() - interval '1 minute'`);
      return [{ labels: { schema: 'orders' }, value: rows[0]!.n }];
    });
  }

  /** Finishes the timers in hand, then stops. */
  async stop(): Promise<void> {
    this.removeMetricSource?.();
    this.removeMetricSource = undefined;
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Claims and fires one batch (`concurrency` at a time); returns how many timers it claimed. */
  async runOnce(): Promise<number> {
    const timers = await claimDueTimers(this.deps.pool, this.id, this.opts.leaseMs, this.opts.batch);
    await eachConcurrently(timers, this.opts.concurrency, async (timer) => {
      try {
        const outcome = await fireTimer(this.deps, timer, this.id);
        this.opts.logger.debug({ orderUuid: timer.orderUuid, kind: timer.kind, outcome }, 'order timer fired');
      } catch (err) {
        // A service or the database out of reach is waited for, however long: giving up would
        // put a confirmed order on hold for a merchant to release, for an outage of minutes.
        const transient = isTransientFailure(err);
        const giveUp = timer.attempts >= this.opts.maxAttempts && !transient;
        this.opts.logger.warn({ err, orderUuid: timer.orderUuid, kind: timer.kind, attempt: timer.attempts, transient, giveUp }, 'order timer failed');
        try {
          if (giveUp) await fireTimer(this.deps, timer, this.id, { giveUp: true });
          else if (transient) await releaseAfterFailure(this.deps.pool, timer.orderUuid, this.id, this.outageWaitMs(timer), (err as Error).message, false);
          else await releaseAfterFailure(this.deps.pool, timer.orderUuid, this.id, Math.min(this.opts.leaseMs, this.opts.pollMs * 2 ** timer.attempts), (err as Error).message);
        } catch (inner) {
          this.opts.logger.error({ err: inner, orderUuid: timer.orderUuid }, 'could not record the failed order timer; its lease will expire');
        }
      }
    });
    return timers.length;
  }

  /**
   * The wait after an outage: it does not count as an attempt (docs/orders.md), so the attempts
   * cannot space the retries out; the time the timer is overdue does (twice the poll at first,
   * then about as long as it has waited so far, at most a lease).
   */
  private outageWaitMs(timer: ClaimedTimer): number {
    return Math.min(this.opts.leaseMs, Math.max(this.opts.pollMs * 2, Date.now() - timer.dueAt.getTime()));
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (err) {
        this.claimFailures.failed(err);
      }
      if (claimed < this.opts.batch && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.opts.pollMs);
          const self = this;
          function done() {
            clearTimeout(timer);
            self.wake = undefined;
            resolve();
          }
          this.wake = done;
        });
      }
    }
  }
}

/**
 * Whether a failed move is worth waiting out: the stock service did not answer, or answered that
 * it is unavailable (its database out of reach or too busy: `unavailable`), or our own database
 * could not serve (isDatabaseUnavailable). Anything else (a refusal, a bug here, an unexpected
 * error of the stock service: StockFailedError) counts toward the attempts, so a failure that
 * comes back every time ends in `holding` for a merchant to see instead of a retry without end.
 */
export function isTransientFailure(err: unknown): boolean {
  if (err instanceof StockUnavailableError) return true;
  if (err instanceof Problem) return err.problemType === 'unavailable';
  return isDatabaseUnavailable(err);
}
