import type { EventEnvelope } from '../events/envelope';
import type { Logger } from '../logging';
import type { EventBus, OutgoingEvent, SubscribeOptions, Subscription } from './bus';

interface Group {
  groupId: string;
  topics: Set<string>;
  handler: SubscribeOptions['handler'];
  /** Next offset to deliver, per topic. */
  cursor: Map<string, number>;
  running: boolean;
  stopped: boolean;
}

/**
 * In-process bus for the embedded wiring: an append-only log per topic and one cursor per
 * consumer group, delivered in order on the event loop. Same semantics as the Kafka adapter
 * (each group sees each event, handlers are retried until they succeed) without durability:
 * the outbox, not the bus, is what survives a restart.
 */
export class InMemoryEventBus implements EventBus {
  private readonly log = new Map<string, EventEnvelope[]>();
  private readonly groups = new Map<string, Group>();
  private closed = false;

  constructor(
    private readonly logger?: Logger,
    private readonly retryDelayMs = 200,
  ) {}

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (this.closed) throw new Error('Event bus is closed');
    for (const { topic, event } of events) {
      const entries = this.log.get(topic) ?? [];
      entries.push(event);
      this.log.set(topic, entries);
    }
    for (const group of this.groups.values()) this.pump(group);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.groups.has(options.groupId)) throw new Error(`Consumer group ${options.groupId} already subscribed`);
    const group: Group = {
      groupId: options.groupId,
      topics: new Set(options.topics),
      handler: options.handler,
      cursor: new Map(options.topics.map((t) => [t, options.fromBeginning === false ? (this.log.get(t)?.length ?? 0) : 0])),
      running: false,
      stopped: false,
    };
    this.groups.set(options.groupId, group);
    this.pump(group);
    return {
      stop: async () => {
        group.stopped = true;
        this.groups.delete(options.groupId);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const g of this.groups.values()) g.stopped = true;
    this.groups.clear();
  }

  private pump(group: Group): void {
    if (group.running || group.stopped) return;
    group.running = true;
    setImmediate(() => {
      this.drain(group)
        .catch((err) => this.logger?.error({ err, group: group.groupId }, 'in-memory consumer failed'))
        .finally(() => {
          group.running = false;
        });
    });
  }

  private async drain(group: Group): Promise<void> {
    let progressed = true;
    while (progressed && !group.stopped) {
      progressed = false;
      for (const topic of group.topics) {
        const entries = this.log.get(topic) ?? [];
        let offset = group.cursor.get(topic) ?? 0;
        while (offset < entries.length && !group.stopped) {
          const event = entries[offset]!;
          try {
            await group.handler(event, { topic, partition: 0, offset: String(offset) });
            offset += 1;
            group.cursor.set(topic, offset);
            progressed = true;
          } catch (err) {
            this.logger?.warn({ err, group: group.groupId, topic, eventId: event.id }, 'handler failed; retrying');
            await new Promise((r) => setTimeout(r, this.retryDelayMs));
          }
        }
      }
    }
  }
}
