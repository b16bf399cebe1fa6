import { decodeEvent, encodeEvent } from '../events/registry';
import type { Logger } from '../logging';
import { assertOneHandler, type EventBus, type OutgoingEvent, type SubscribeOptions, type Subscription } from './bus';
import { growingWait, wakeableDelay } from './growing-waits';

interface Entry {
  /** Position across all topics: delivery follows publish order. */
  seq: number;
  /** Encoded like on a broker, so every delivery decodes a fresh, validated copy. */
  raw: string;
}

interface Group {
  groupId: string;
  topics: string[];
  handler: SubscribeOptions['handler'];
  batchHandler: SubscribeOptions['batchHandler'];
  maxBatchSize: number;
  /** Next offset to deliver, per topic; kept after stop like a committed offset. */
  cursor: Map<string, number>;
  stopped: boolean;
  /** Set while the group waits for events; publish and stop call it. */
  wake?: () => void;
  /** Set while the group waits to retry a handler; only stop cuts it short. */
  interrupt?: () => void;
  loop?: Promise<void>;
}

/**
 * In-process bus for the embedded wiring: an append-only log per topic and one cursor per
 * consumer group, delivered in order on the event loop. Same semantics as the Kafka adapter
 * (each group sees each event; a failing handler is retried until it succeeds; an event that does
 * not decode is logged and skipped; a group that subscribes again resumes where it stopped) without
 * durability: the outbox, not the bus, is what survives a restart.
 */
export class InMemoryEventBus implements EventBus {
  private readonly log = new Map<string, Entry[]>();
  private readonly groups = new Map<string, Group>();
  private readonly cursors = new Map<string, Map<string, number>>();
  private seq = 0;
  private closed = false;

  constructor(
    private readonly logger?: Logger,
    /** First retry delay of a failing handler; doubles up to 30 s. */
    private readonly retryDelayMs = 200,
  ) {}

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (this.closed) throw new Error('Event bus is closed');
    for (const { topic, event } of events) {
      const entries = this.log.get(topic) ?? [];
      entries.push({ seq: this.seq++, raw: encodeEvent(event) });
      this.log.set(topic, entries);
    }
    for (const group of this.groups.values()) group.wake?.();
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('Event bus is closed');
    if (this.groups.has(options.groupId)) throw new Error(`Consumer group ${options.groupId} already subscribed`);
    assertOneHandler(options);
    const cursor = this.cursors.get(options.groupId) ?? new Map<string, number>();
    this.cursors.set(options.groupId, cursor);
    for (const topic of options.topics) {
      if (!cursor.has(topic)) cursor.set(topic, options.fromBeginning === false ? (this.log.get(topic)?.length ?? 0) : 0);
    }
    const group: Group = {
      groupId: options.groupId,
      topics: [...new Set(options.topics)],
      handler: options.handler,
      batchHandler: options.batchHandler,
      maxBatchSize: Math.max(1, options.maxBatchSize ?? 100),
      cursor,
      stopped: false,
    };
    this.groups.set(options.groupId, group);
    group.loop = this.consume(group).catch((err) =>
      this.logger?.error({ err, group: group.groupId }, 'in-memory consumer failed'),
    );
    return { stop: () => this.stop(group) };
  }

  /** Stops consumers, waiting for handlers in flight. Nothing to flush: publish is synchronous. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.groups.values()].map((g) => this.stop(g)));
  }

  private async stop(group: Group): Promise<void> {
    group.stopped = true;
    group.wake?.();
    group.interrupt?.();
    if (this.groups.get(group.groupId) === group) this.groups.delete(group.groupId);
    await group.loop;
  }

  private async consume(group: Group): Promise<void> {
    // Let subscribe() return before the first delivery, as a broker round trip would.
    await new Promise((r) => setImmediate(r));
    let failures = 0;
    while (!group.stopped) {
      const next = this.nextFor(group);
      if (!next) {
        // Checked and parked in the same tick: a publish cannot slip in between.
        await new Promise<void>((resolve) => {
          group.wake = () => {
            group.wake = undefined;
            resolve();
          };
        });
        continue;
      }
      if (group.batchHandler) {
        // A run of the events available now, in publish order; its cursors move only once the
        // batch handler succeeded. Events that do not decode are skipped with the run.
        const run = this.nextRun(group, group.maxBatchSize);
        const items: Parameters<NonNullable<SubscribeOptions['batchHandler']>>[0] = [];
        for (const r of run) {
          try {
            items.push({ event: decodeEvent(r.raw), meta: { topic: r.topic, partition: 0, offset: String(r.offset) } });
          } catch (err) {
            this.logger?.error({ err, group: group.groupId, topic: r.topic, offset: r.offset }, 'skipping a message that is not a valid event');
          }
        }
        try {
          if (items.length > 0) await group.batchHandler(items);
          for (const r of run) group.cursor.set(r.topic, r.offset + 1);
          failures = 0;
        } catch (err) {
          failures += 1;
          await this.backoff(group, failures, { err, events: items.length });
        }
        continue;
      }
      const { topic, offset, raw } = next;
      let event;
      try {
        event = decodeEvent(raw);
      } catch (err) {
        this.logger?.error({ err, group: group.groupId, topic, offset }, 'skipping a message that is not a valid event');
        group.cursor.set(topic, offset + 1);
        continue;
      }
      try {
        await group.handler!(event, { topic, partition: 0, offset: String(offset) });
        group.cursor.set(topic, offset + 1);
        failures = 0;
      } catch (err) {
        failures += 1;
        await this.backoff(group, failures, { err, topic, eventId: event.id });
      }
    }
  }

  /** Waits before retrying a failed handler (doubling, up to 30 s); only stop cuts it short. */
  private async backoff(group: Group, failures: number, context: Record<string, unknown>): Promise<void> {
    const delay = growingWait(failures, this.retryDelayMs, Math.max(this.retryDelayMs, 30_000));
    this.logger?.warn({ ...context, group: group.groupId, attempt: failures, retryInMs: delay }, 'handler failed; retrying');
    await wakeableDelay(delay, (wake) => (group.interrupt = wake));
  }

  /** Up to `max` of the group's oldest undelivered events, in publish order across its topics. */
  private nextRun(group: Group, max: number): { topic: string; offset: number; raw: string }[] {
    const cursor = new Map(group.cursor);
    const run: { topic: string; offset: number; raw: string }[] = [];
    while (run.length < max) {
      let best: { topic: string; offset: number; entry: Entry } | undefined;
      for (const topic of group.topics) {
        const offset = cursor.get(topic) ?? 0;
        const entry = this.log.get(topic)?.[offset];
        if (entry && (!best || entry.seq < best.entry.seq)) best = { topic, offset, entry };
      }
      if (!best) break;
      run.push({ topic: best.topic, offset: best.offset, raw: best.entry.raw });
      cursor.set(best.topic, best.offset + 1);
    }
    return run;
  }

  /** The group's oldest undelivered event across its topics. */
  private nextFor(group: Group): { topic: string; offset: number; raw: string } | undefined {
    let best: { topic: string; offset: number; entry: Entry } | undefined;
    for (const topic of group.topics) {
      const offset = group.cursor.get(topic) ?? 0;
      const entry = this.log.get(topic)?.[offset];
      if (entry && (!best || entry.seq < best.entry.seq)) best = { topic, offset, entry };
    }
    return best && { topic: best.topic, offset: best.offset, raw: best.entry.raw };
  }
}
