import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '@pf/platform/logging';
import { claimDueTimers, releaseAfterFailure } from '../repositories/timer-repository';
import type { OrdersDeps } from '../use-cases/deps';
import { fireTimer } from '../use-cases/fire-timer';

export interface TimerWorkerOptions {
  pollMs: number;
  leaseMs: number;
  batch: number;
  /** Failed attempts before the order moves to `error`. */
  maxAttempts: number;
  logger: Logger;
}

/**
 * The durable timers' worker (ARCHITECTURE.md principle 3), started and stopped with the service:
 * every `pollMs` it claims due timers (SKIP LOCKED, with a lease) and moves their orders to
 * processing. A failed move is retried with a growing wait; after `maxAttempts` the order goes to
 * `error`. Rows live in Postgres, so a restart or a second replica neither loses nor doubles one.
 */
export class TimerWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(
    private readonly deps: OrdersDeps,
    private readonly opts: TimerWorkerOptions,
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the timers in hand, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Claims and fires one batch; returns how many timers it claimed. */
  async runOnce(): Promise<number> {
    const timers = await claimDueTimers(this.deps.pool, this.id, this.opts.leaseMs, this.opts.batch);
    for (const timer of timers) {
      try {
        const outcome = await fireTimer(this.deps, timer, this.id);
        this.opts.logger.debug({ orderUuid: timer.orderUuid, kind: timer.kind, outcome }, 'order timer fired');
      } catch (err) {
        const giveUp = timer.attempts >= this.opts.maxAttempts;
        this.opts.logger.warn({ err, orderUuid: timer.orderUuid, kind: timer.kind, attempt: timer.attempts, giveUp }, 'order timer failed');
        try {
          if (giveUp) await fireTimer(this.deps, timer, this.id, { giveUp: true });
          else await releaseAfterFailure(this.deps.pool, timer.orderUuid, this.id, Math.min(this.opts.leaseMs, this.opts.pollMs * 2 ** timer.attempts), (err as Error).message);
        } catch (inner) {
          this.opts.logger.error({ err: inner, orderUuid: timer.orderUuid }, 'could not record the failed order timer; its lease will expire');
        }
      }
    }
    return timers.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (err) {
        this.opts.logger.error({ err }, 'order timer worker could not claim timers');
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
