import type { EventEnvelope } from '../events/envelope';

/** An event on its way out: the logical topic and the envelope (key = envelope.aggregateId). */
export interface OutgoingEvent {
  topic: string;
  event: EventEnvelope;
}

export type EventHandler = (event: EventEnvelope, meta: { topic: string; partition: number; offset: string }) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: every group sees every event once (modulo redelivery); members share partitions. */
  groupId: string;
  topics: string[];
  handler: EventHandler;
  /** Start from the earliest retained event when the group has no committed offset. Default true. */
  fromBeginning?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * The event bus. Delivery is at least once: a handler may see an event again after a crash or a
 * relay retry, so handlers must be idempotent (inbox or natural keys). A handler that throws is
 * retried; the offset is committed only after it succeeds.
 */
export interface EventBus {
  /** Publishes in order; resolves only when the bus has durably accepted every event. */
  publish(events: OutgoingEvent[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Stops consumers and flushes the producer. */
  close(): Promise<void>;
}
