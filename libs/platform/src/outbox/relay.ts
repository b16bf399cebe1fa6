import pg from 'pg';
import type { EventBus } from '../bus/bus';
import type { EventEnvelope } from '../events/envelope';
import type { Logger } from '../logging';
import { outboxChannel, quoteSchema } from './sql';
import { ChannelListener } from '../db/listener';
import { LoopFailureLog } from '../db/outage-log';
import { withClient } from '../db/pool';
import { queryBatch, type BatchResult, type BatchStatement } from '../db/batch';
import { prepared } from '../db/statement';
import { ScrapedGauge, sharedScrapeRead } from '../metrics';

/** Read at each scrape: a backlog that grows means the relay cannot publish (Kafka down or refusing). */
const unpublishedEvents = new ScrapedGauge({
  name: 'pf_outbox_unpublished_events',
  help: 'Events written to a service schema\'s outbox and not yet published to Kafka.',
  labelNames: ['schema'] as const,
});
const oldestUnpublishedAge = new ScrapedGauge({
  name: 'pf_outbox_oldest_unpublished_age_seconds',
  help: 'Age of the oldest event of the outbox not yet published (0 when there is none).',
  labelNames: ['schema'] as const,
});

export interface OutboxRelayOptions {
  pool: pg.Pool;
  schema: string;
  bus: EventBus;
  logger: Logger;
  /** Rows per publish. */
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (e.g. missed during a reconnect). */
  pollIntervalMs?: number;
  /** Published rows older than this are deleted. */
  retentionHours?: number;
  /**
   * How long a notified commit waits for more before the batch is read (default 10 ms): under load
   * the commits of that time leave as one batch (two round trips and one produce), not one each.
   */
  lingerMs?: number;
}

/** Transaction-local setting that carries whether this transaction holds the publisher lock. */
const PUBLISHER_SETTING = 'pf.outbox_publisher';

const BEGIN: BatchStatement = { text: 'BEGIN' };
const COMMIT: BatchStatement = { text: 'COMMIT' };
const RELAXED_COMMIT: BatchStatement = { name: 'pf.relay.relaxed-commit', text: "SELECT set_config('synchronous_commit', 'off', true)" };
const TAKE_PUBLISHER_LOCK = `SELECT set_config('${PUBLISHER_SETTING}', pg_try_advisory_xact_lock(hashtext($1))::text, true) AS ok`;

/**
 * Publishes outbox rows to the bus in commit order, at least once. A transaction-level advisory
 * lock makes one replica the publisher at a time, which keeps each aggregate's events in order;
 * rows are marked published in the same transaction that read them, after the bus acknowledged,
 * so a crash between the two re-publishes (consumers deduplicate) and never loses an event.
 */
export class OutboxRelay {
  private readonly schema: string;
  /** The publisher lock's key. */
  private readonly lockKey: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retentionHours: number;
  private readonly lingerMs: number;
  private removeMetricSources: (() => void)[] = [];
  private running = false;
  private loop?: Promise<void>;
  /** Ends the current idle wait early (stop, or a notification when the wait allows it). */
  private wake?: () => void;
  private wakeOnNotify = false;
  /** A commit was notified since the last batch started: its rows may not have been read yet. */
  private notified = false;
  private listener?: ChannelListener;
  private lastCleanup = 0;
  private readonly readBatchSql: string;
  private readonly markPublishedSql: string;
  private readonly failures: LoopFailureLog;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.schema = quoteSchema(opts.schema);
    this.failures = new LoopFailureLog(opts.logger, 'outbox relay failed to publish');
    this.readBatchSql = `SELECT seq, topic, envelope FROM ${this.schema}.outbox_event
      WHERE current_setting('${PUBLISHER_SETTING}') = 'true' AND published_at IS NULL ORDER BY seq LIMIT $1`;
    this.markPublishedSql = `UPDATE ${this.schema}.outbox_event SET published_at = now() WHERE seq = ANY($1::bigint[])`;
    this.lockKey = `pf-outbox:${opts.schema}`;
    this.batchSize = opts.batchSize ?? 200;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1) throw new Error(`outbox relay: batchSize must be a positive integer, not ${this.batchSize}`);
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.retentionHours = opts.retentionHours ?? 24 * 7;
    this.lingerMs = opts.lingerMs ?? 10;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.listener = new ChannelListener({
      connection: this.opts.pool.options,
      channel: outboxChannel(this.opts.schema),
      // Remembered, so a commit notified while a batch is in flight is not left for the next poll.
      onNotify: () => {
        this.notified = true;
        if (this.wakeOnNotify) this.wake?.();
      },
      logger: this.opts.logger,
      label: `outbox ${this.opts.schema}`,
    });
    await this.listener.start();
    this.loop = this.run();
    const read = sharedScrapeRead(async () => {
      const { rows } = await this.opts.pool.query<{ n: number; age: number }>(
        `SELECT count(*)::int AS n, COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
           FROM ${this.schema}.outbox_event WHERE published_at IS NULL`,
      );
      return rows[0]!;
    });
    const labels = { schema: this.opts.schema };
    this.removeMetricSources = [
      unpublishedEvents.addSource(async () => [{ labels, value: (await read()).n }]),
      oldestUnpublishedAge.addSource(async () => [{ labels, value: (await read()).age }]),
    ];
  }

  /** Finishes the batch in flight, then stops. */
  async stop(): Promise<void> {
    for (const remove of this.removeMetricSources.splice(0)) remove();
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.listener?.stop();
    this.listener = undefined;
  }

  /** Publishes one batch; returns how many rows it published (0 when idle or not the publisher). */
  async publishBatch(): Promise<number> {
    // The connection sits idle while the bus publishes: withClient listens for its loss meanwhile.
    return withClient(this.opts.pool, async (client, discard) => {
      try {
        // BEGIN, the publisher lock and the read in one round trip (a batch of prepared statements:
        // parsed and planned once per connection). Each statement takes its own snapshot, so the
        // read sees every row committed before the lock was taken; the lock's outcome reaches the
        // read through a transaction-local setting. The published mark need not wait for its WAL
        // flush: lost in a crash, it only makes the batch go out again, which consumers tolerate
        // (at least once, inbox), so the relay's commits cost no fsync of their own.
        const [, , lock, batch] = (await queryBatch(client, [
          BEGIN,
          RELAXED_COMMIT,
          prepared('outbox', TAKE_PUBLISHER_LOCK, [this.lockKey]),
          prepared('outbox', this.readBatchSql, [this.batchSize]),
        ])) as [BatchResult, BatchResult, BatchResult<{ ok: string }>, BatchResult<{ seq: string; topic: string; envelope: EventEnvelope }>];
        if (lock.rows[0]?.ok !== 'true') {
          await client.query('ROLLBACK');
          return 0;
        }
        const rows = batch.rows;
        if (rows.length === 0) {
          await client.query('COMMIT');
          return 0;
        }
        await this.opts.bus.publish(rows.map((r) => ({ topic: r.topic, event: r.envelope })));
        // Marked and committed in one round trip.
        await queryBatch(client, [prepared('outbox', this.markPublishedSql, [rows.map((r) => r.seq)]), COMMIT]);
        return rows.length;
      } catch (err) {
        await client.query('ROLLBACK').catch(discard);
        throw err;
      }
    });
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        this.notified = false;
        const n = await this.publishBatch();
        failures = 0;
        await this.cleanupIfDue();
        if (n === this.batchSize) continue;
        await this.idle(this.pollIntervalMs, true);
        if (this.notified && this.lingerMs > 0) await this.idle(this.lingerMs, false);
      } catch (err) {
        failures += 1;
        const delay = Math.min(30_000, 250 * 2 ** Math.min(failures, 7));
        this.failures.failed(err, { schema: this.opts.schema, retryInMs: delay });
        await this.idle(delay, false);
      }
    }
  }

  /** Waits `ms`; `stop()` ends the wait, and so does a notified commit when `wakeOnNotify`. */
  private idle(ms: number, wakeOnNotify: boolean): Promise<void> {
    if (wakeOnNotify && this.notified) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      this.wakeOnNotify = wakeOnNotify;
    });
  }

  private async cleanupIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 60 * 60 * 1000) return;
    this.lastCleanup = now;
    await this.opts.pool.query(
      `DELETE FROM ${this.schema}.outbox_event WHERE published_at < now() - make_interval(hours => $1)`,
      [this.retentionHours],
    );
  }
}
