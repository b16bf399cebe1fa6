import pg from 'pg';
import type { Logger } from '@pf/platform/logging';
import { ChannelListener } from '@pf/platform/db/listener';
import { LoopFailureLog } from '@pf/platform/db/outage-log';
import { ScrapedGauge, sharedScrapeRead } from '@pf/platform/metrics';
import { afterAttempt, attemptError, isSuccess, maxAttempts } from '../domain/delivery-rules';
import {
  claimDueDeliveries,
  deleteFinishedBefore,
  DELIVERY_CHANNEL,
  failInterruptedLastAttempts,
  nextDueAt,
  recordAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
} from '../repositories/deliveries';
import { ChannelLoad } from './channel-load';
import type { AttemptOutcome, AttemptRequest } from './https-sender';


export interface DeliveryWorkerOptions {
  pool: pg.Pool;
  sender: { attempt(req: AttemptRequest): Promise<AttemptOutcome> };
  retryDelays: readonly number[];
  /** Attempts in flight at once. */
  concurrency: number;
  /** Attempts in flight at once to one SLOW channel (see ChannelLoad). Default: `concurrency`. */
  perChannelConcurrency?: number;
  /** An attempt running longer than this makes its channel slow. Default: 1 s. */
  slowAttemptMs?: number;
  /** Deliveries claimed per round trip. */
  claimBatch: number;
  leaseSeconds: number;
  /** Longest idle wait when no NOTIFY arrives. */
  pollIntervalMs: number;
  /** Finished deliveries older than this many days are deleted (checked hourly). */
  retentionDays?: number;
  logger: Logger;
}

/** Read at each scrape (docs/deploy.md, "What to watch"). */
const openDeliveries = new ScrapedGauge({
  name: 'pf_webhook_deliveries_open',
  help: 'Webhook deliveries not finished: pending (queued or waiting for a retry) or sending (an attempt under way).',
  labelNames: ['state'] as const,
});
const overdueDeliveries = new ScrapedGauge({
  name: 'pf_webhook_deliveries_overdue',
  help: 'Open webhook deliveries due (or whose attempt lease ended) more than a minute ago: the workers are not keeping up.',
  // A label, so that a failed read leaves the series out rather than reading 0.
  labelNames: ['schema'] as const,
});

/**
 * Works the durable delivery queue: claims due deliveries (`FOR UPDATE SKIP LOCKED`, leased),
 * makes one attempt each with up to `concurrency` in flight, and records every attempt and the
 * delivery's next state in batched statements. Woken at once by `nudge()` (the event consumer of
 * the same process) or a NOTIFY (resend, redelivery, stock windows, from any replica); a retry or
 * a lease that runs out wakes it through the earliest due time; a poll covers anything missed. Any number of replicas may run side by side: a delivery is only ever in one worker's
 * hands at a time, and a restarted or crashed worker's deliveries are taken up again when due
 * (or when their lease runs out).
 *
 * Fairness (ChannelLoad): a slow channel (an attempt running or having taken longer than
 * `slowAttemptMs`) has at most `perChannelConcurrency` attempts in flight, and slow channels
 * together at most half of `concurrency`; claims pass over a channel's rows while it is at its
 * limit (they stay due, in order), and an attempt of it finishing wakes the loop. Receivers that
 * answer slowly, or hang until the time-out, thus hold a bounded share of the worker, however many
 * they are, and every other channel's webhooks keep going out. Fast channels are not limited: they
 * give their slots back within milliseconds.
 */
export class DeliveryWorker {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** What the idle loop waits for: free capacity (finished attempts) or new work (NOTIFY, due time). */
  private waitingFor: 'capacity' | 'work' = 'work';
  /** When the idle loop wakes by itself (ms since the epoch). */
  private wakeAt = 0;
  private notified = false;
  private listener?: ChannelListener;
  private inFlight = 0;
  private readonly channels: ChannelLoad;
  private lastHousekeeping = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly toRecord: AttemptRecord[] = [];
  private recording?: Promise<void>;
  private readonly maxAttempts: number;
  private lastCleanup = 0;
  private removeMetricSources: (() => void)[] = [];
  private readonly claimFailures: LoopFailureLog;
  private readonly recordFailures: LoopFailureLog;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.maxAttempts = maxAttempts(opts.retryDelays);
    this.claimFailures = new LoopFailureLog(opts.logger, 'webhook delivery worker failed to claim');
    this.recordFailures = new LoopFailureLog(opts.logger, 'could not record webhook attempts; retrying');
    this.channels = new ChannelLoad(Math.max(1, Math.min(opts.perChannelConcurrency ?? opts.concurrency, opts.concurrency)), opts.slowAttemptMs ?? 1000, {
      // Half the worker at most for slow channels together: the other half keeps the fast ones going.
      slowTotal: Math.max(1, Math.floor(opts.concurrency / 2)),
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.listener = new ChannelListener({
      connection: this.opts.pool.options,
      channel: DELIVERY_CHANNEL,
      onNotify: () => this.nudge(),
      logger: this.opts.logger,
      label: 'webhook queue',
    });
    await this.listener.start();
    this.loop = this.run();
    const read = sharedScrapeRead(async () => {
      const { rows } = await this.opts.pool.query<{ pending: number; sending: number; overdue: number }>(
        `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'sending')::int AS sending,
                count(*) FILTER (WHERE next_attempt_at < now() - interval '1 minute')::int AS overdue
           FROM delivery WHERE status IN ('pending', 'sending')`,
      );
      return rows[0]!;
    });
    this.removeMetricSources = [
      openDeliveries.addSource(async () => {
        const { pending, sending } = await read();
        return [
          { labels: { state: 'pending' }, value: pending },
          { labels: { state: 'sending' }, value: sending },
        ];
      }),
      overdueDeliveries.addSource(async () => [{ labels: { schema: 'webhooks' }, value: (await read()).overdue }]),
    ];
  }

  /** Stops claiming, lets the attempts in flight finish and records them, then stops. */
  async stop(): Promise<void> {
    for (const remove of this.removeMetricSources.splice(0)) remove();
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all([...this.attempts]);
    await this.flush();
    await this.listener?.stop();
    this.listener = undefined;
  }

  /** Something was queued: claim now rather than at the next poll. */
  nudge(): void {
    this.notified = true;
    if (this.waitingFor === 'work') this.wake?.();
  }

  /** Attempts in flight now. */
  get busy(): number {
    return this.inFlight;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const free = this.opts.concurrency - this.inFlight;
        if (free < this.refillAt()) {
          // Saturated: finished attempts wake the loop once there is room for a batch.
          await this.idle(this.opts.pollIntervalMs, 'capacity');
          continue;
        }
        this.notified = false;
        const limit = Math.min(free, this.opts.claimBatch);
        const now = Date.now();
        const fullBefore = this.channels.full(now).length;
        const claimed = await claimDueDeliveries(this.opts.pool, {
          limit,
          leaseSeconds: this.opts.leaseSeconds,
          maxAttempts: this.maxAttempts,
          channelRoom: this.channels.limits(now),
          limitedTotal: this.channels.slowRoom(now),
        });
        for (const delivery of claimed) this.dispatch(delivery);
        failures = 0;
        if (claimed.length === limit) continue;
        // Rows of a slow channel that just reached its limit were passed over: claim again without them.
        const full = this.channels.full(Date.now());
        if (claimed.length > 0 && full.length > fullBefore) continue;
        await this.housekeepingIfDue();
        if (this.notified) continue;
        // Slow channels at their limit are left out: an attempt of theirs finishing wakes the loop.
        const due = await nextDueAt(this.opts.pool, full);
        // Rows due now but skipped (another replica holds them) must not make this loop spin.
        const wait = due ? Math.max(25, Math.min(this.opts.pollIntervalMs, due.getTime() - Date.now())) : this.opts.pollIntervalMs;
        await this.idle(wait, 'work');
      } catch (err) {
        failures += 1;
        const delay = Math.min(30_000, 250 * 2 ** Math.min(failures, 7));
        this.claimFailures.failed(err, { retryInMs: delay });
        await this.idle(delay, 'work');
      }
    }
  }

  /**
   * At most once per poll interval, when the loop is about to idle: last attempts interrupted by
   * a dead worker fail, and old finished deliveries are deleted. Not on every wake-up: under a
   * steady stream of events the loop idles many times a second.
   */
  private async housekeepingIfDue(): Promise<void> {
    if (Date.now() - this.lastHousekeeping < this.opts.pollIntervalMs) return;
    this.lastHousekeeping = Date.now();
    await failInterruptedLastAttempts(this.opts.pool, this.maxAttempts);
    await this.cleanupIfDue();
  }

  /** Hourly, when idle: the delivery log keeps finished deliveries for `retentionDays`. */
  private async cleanupIfDue(): Promise<void> {
    if (!this.opts.retentionDays || Date.now() - this.lastCleanup < 3_600_000) return;
    this.lastCleanup = Date.now();
    const deleted = await deleteFinishedBefore(this.opts.pool, this.opts.retentionDays);
    if (deleted > 0) this.opts.logger.info({ deleted, retentionDays: this.opts.retentionDays }, 'old finished deliveries deleted');
  }

  /** Free slots worth a claim: a batch, not one row per finished attempt. */
  private refillAt(): number {
    return Math.max(1, Math.min(this.opts.claimBatch, Math.floor(this.opts.concurrency / 2)));
  }

  private dispatch(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    const startedAt = new Date();
    this.channels.started(delivery.channelId, startedAt.getTime());
    const attempt = this.opts.sender
      .attempt({
        registeredUrl: delivery.url,
        notificationType: delivery.notificationType,
        body: delivery.body,
        signature: delivery.signature,
        deliveryId: delivery.id,
        attempt: delivery.attempt,
      })
      .catch((err: Error): AttemptOutcome => ({ result: { kind: 'error', error: `internal: ${err.message}` }, url: delivery.url, durationMs: Date.now() - startedAt.getTime() }))
      .then((outcome) => this.record(delivery, startedAt, outcome))
      .finally(() => {
        this.inFlight -= 1;
        this.attempts.delete(attempt);
        if (this.channels.finished(delivery.channelId, startedAt.getTime(), Date.now())) this.nudge();
        if (this.waitingFor === 'capacity' && this.opts.concurrency - this.inFlight >= this.refillAt()) this.wake?.();
      });
    this.attempts.add(attempt);
  }

  private record(delivery: ClaimedDelivery, startedAt: Date, outcome: AttemptOutcome): void {
    const next = afterAttempt(outcome.result, delivery.attempt, this.opts.retryDelays, new Date());
    const record: AttemptRecord = {
      deliveryId: delivery.id,
      leaseToken: delivery.leaseToken,
      attempt: delivery.attempt,
      startedAt,
      durationMs: outcome.durationMs,
      url: outcome.url,
      outcome: isSuccess(outcome.result) ? 'succeeded' : outcome.result.kind === 'refused' ? 'refused' : 'failed',
      statusCode: outcome.result.kind === 'response' ? outcome.result.statusCode : null,
      error: next.status === 'failed' ? next.reason : attemptError(outcome.result),
      status: next.status,
      nextAttemptAt: next.status === 'pending' ? next.nextAttemptAt : null,
    };
    const log = { deliveryId: delivery.id, channelId: delivery.channelId, notificationType: delivery.notificationType, attempt: delivery.attempt, durationMs: outcome.durationMs };
    if (next.status === 'succeeded') this.opts.logger.debug({ ...log, statusCode: record.statusCode }, 'webhook delivered');
    else if (next.status === 'failed') this.opts.logger.warn({ ...log, statusCode: record.statusCode, error: record.error }, 'webhook delivery failed for good');
    else this.opts.logger.info({ ...log, statusCode: record.statusCode, error: record.error, nextAttemptAt: record.nextAttemptAt }, 'webhook attempt failed; retry scheduled');
    this.toRecord.push(record);
    void this.flush().then(() => {
      // A retry due before the loop would wake by itself: wake it (once the retry is recorded).
      if (record.nextAttemptAt && this.waitingFor === 'work' && record.nextAttemptAt.getTime() < this.wakeAt) this.wake?.();
    });
  }

  /**
   * Writes the attempts finished so far in one statement; attempts that finish meanwhile go in
   * the next one (group commit). A failing write is retried: the attempts are not forgotten.
   */
  private flush(): Promise<void> {
    if (this.recording) return this.recording.then(() => (this.toRecord.length > 0 ? this.flush() : undefined));
    if (this.toRecord.length === 0) return Promise.resolve();
    this.recording = (async () => {
      let failures = 0;
      while (this.toRecord.length > 0) {
        const batch = this.toRecord.splice(0, 500);
        try {
          await recordAttempts(this.opts.pool, batch);
          failures = 0;
        } catch (err) {
          this.toRecord.unshift(...batch);
          failures += 1;
          const delay = Math.min(10_000, 100 * 2 ** Math.min(failures, 7));
          this.recordFailures.failed(err, { attempts: batch.length, retryInMs: delay });
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    })().finally(() => {
      this.recording = undefined;
    });
    return this.recording;
  }

  private idle(ms: number, waitingFor: 'capacity' | 'work'): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.notified && waitingFor === 'work') return Promise.resolve();
    this.waitingFor = waitingFor;
    this.wakeAt = Date.now() + ms;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
