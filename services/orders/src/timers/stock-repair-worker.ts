import { LoopFailureLog } from '@pf/platform/db/outage-log';
import type { Logger } from '@pf/platform/logging';
import type { OrdersDeps } from '../use-cases/deps';
import { repairLeftoverStockSteps } from '../use-cases/stock-repair';

export interface StockRepairWorkerOptions {
  intervalMs: number;
  /** Age of a journal row before its change counts as never finishing. */
  afterMs: number;
  logger: Logger;
}

/**
 * Runs the stock repair at start and then every `intervalMs`, with the service. Replicas may run
 * it side by side: each order is repaired under its row lock and its journal row deleted with it.
 */
export class StockRepairWorker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly passFailures: LoopFailureLog;

  constructor(
    private readonly deps: OrdersDeps,
    private readonly opts: StockRepairWorkerOptions,
  ) {
    this.passFailures = new LoopFailureLog(opts.logger, 'stock repair pass failed');
  }

  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.opts.intervalMs);
    this.timer.unref();
    void this.runOnce();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass (a pass still running is not doubled). */
  runOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        let outcome;
        do {
          outcome = await repairLeftoverStockSteps(this.deps, { olderThanMs: this.opts.afterMs, limit: 50 });
          if (outcome.examined > 0) this.opts.logger.info({ ...outcome }, 'stock repair pass');
        } while (outcome.examined === 50 && outcome.busy < 50 && this.timer);
      } catch (err) {
        this.passFailures.failed(err);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
