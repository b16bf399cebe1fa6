import { LoopFailureLog } from '@pf/platform/db/outage-log';
import type { Logger } from '@pf/platform/logging';
import { stockLevelUpdatedPayload, windowProductLevels } from '../domain/notifications';
import { inTransaction } from '../repositories/db';
import { claimDueWindows, deleteClosedWindow, nextWindowDueAt, noteWindowFailure, type ClaimedWindow } from '../repositories/stock-windows';
import type { StockFigures } from '../stock/stock-figures';
import type { WebhooksDeps } from './deps';
import { queueForTeam } from './queueing';

/**
 * Closes one due stock window: reads the CURRENT figures of every product changed in it from the
 * stock service (the numbers of `GET /stock-levels` at sending time), then, in one transaction,
 * ends the window and queues one `stock-level-updated` per channel of the team that may get new
 * webhooks. A product the stock service no longer reports (deleted) is left out; a window left
 * with no products sends nothing. If the figures cannot be read, the window stays and is tried
 * again when its lease runs out.
 * @returns the deliveries queued
 */
export async function closeStockWindow(deps: WebhooksDeps, figures: StockFigures, window: ClaimedWindow, windowSeconds: number): Promise<number> {
  const current = await figures.figuresOf(
    window.teamCode,
    window.products.map((p) => p.productUuid),
  );
  const products = windowProductLevels(window.products, current);
  return inTransaction(deps.pool, async (tx) => {
    // Another closer took the window over after our lease ran out: it sends, we do not.
    if (!(await deleteClosedWindow(tx, window.id, window.leaseToken, windowSeconds))) return 0;
    if (products.length === 0) return 0;
    const ids = await queueForTeam(deps, tx, window.teamCode, (endpoint) => ({
      notificationType: 'stock-level-updated',
      orderUuid: null,
      payload: stockLevelUpdatedPayload({
        teamCode: window.teamCode,
        channelCode: endpoint.channelCode,
        changedAt: window.lastChangedAt.toISOString(),
        products,
      }),
    }));
    return ids.length;
  });
}

export interface StockWindowWorkerOptions {
  deps: WebhooksDeps;
  figures: StockFigures;
  /** How long a closing window stays leased (reading figures and queueing must fit in it). */
  leaseSeconds: number;
  /** The window's length (WEBHOOK_STOCK_WINDOW_SECONDS): also the least time between two of a team's. */
  windowSeconds: number;
  pollIntervalMs: number;
  logger: Logger;
}

/**
 * Closes stock windows when they fall due. Windows are rows with a due time, claimed with
 * `FOR UPDATE SKIP LOCKED`, so replicas share the work, and a restart loses no window.
 */
export class StockWindowWorker {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly failures: LoopFailureLog;

  constructor(private readonly opts: StockWindowWorkerOptions) {
    this.failures = new LoopFailureLog(opts.logger, 'stock window worker failed');
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Closes every window due now; returns how many it closed. */
  async closeDue(): Promise<number> {
    let closed = 0;
    for (;;) {
      const windows = await claimDueWindows(this.opts.deps.pool, { limit: 10, leaseSeconds: this.opts.leaseSeconds });
      if (windows.length === 0) return closed;
      await Promise.all(
        windows.map(async (w) => {
          try {
            const queued = await closeStockWindow(this.opts.deps, this.opts.figures, w, this.opts.windowSeconds);
            closed += 1;
            this.opts.logger.info({ teamCode: w.teamCode, products: w.products.length, queued }, 'stock window closed');
          } catch (err) {
            this.opts.logger.error({ err, teamCode: w.teamCode, windowId: w.id }, 'could not close a stock window; it is tried again when its lease runs out');
            await noteWindowFailure(this.opts.deps.pool, w.id, w.leaseToken, (err as Error).message).catch(() => undefined);
          }
        }),
      );
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let wait = this.opts.pollIntervalMs;
      try {
        await this.closeDue();
        const due = await nextWindowDueAt(this.opts.deps.pool);
        if (due) wait = Math.max(25, Math.min(wait, due.getTime() - Date.now()));
      } catch (err) {
        this.failures.failed(err);
        wait = Math.max(wait, 1000);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
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
