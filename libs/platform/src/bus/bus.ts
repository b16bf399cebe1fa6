import type { EventEnvelope } from '../events/envelope';

/** An event on its way out: the logical topic and the envelope (key = envelope.aggregateId). */
export interface OutgoingEvent {
  topic: string;
  event: EventEnvelope;
}

/** Where an event was read from. */
export interface EventMeta {
  topic: string;
  partition: number;
  offset: string;
}

export type EventHandler = (event: EventEnvelope, meta: EventMeta) => Promise<void>;

/**
 * Handles a run of consecutive events of one partition (in order), for consumers that apply many
 * events in one transaction. They count as handled only when it resolves; when it throws, the
 * whole run is retried.
 */
export type BatchEventHandler = (events: { event: EventEnvelope; meta: EventMeta }[]) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: every group sees every event once (modulo redelivery); members share partitions. */
  groupId: string;
  topics: string[];
  /** One event at a time. Give exactly one of `handler` and `batchHandler`. */
  handler?: EventHandler;
  /** Runs of events (at most `maxBatchSize`), as many as are available. */
  batchHandler?: BatchEventHandler;
  /** Most events per `batchHandler` call. Default 100. */
  maxBatchSize?: number;
  /** Start from the earliest retained event when the group has no committed offset. Default true. */
  fromBeginning?: boolean;
  /**
   * The group is this process's alone (a name made up per process): the bus deletes it when the
   * subscription stops, so restarts do not leave empty groups behind until the broker's offset
   * retention expires them. Default false.
   */
  ephemeral?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * The event bus. Delivery is at least once: a handler may see an event again after a crash or a
 * relay retry, so handlers must be idempotent (inbox or natural keys). A handler that throws is
 * retried; the offset is committed only after it succeeds (for a batch handler: after the batch).
 */
export interface EventBus {
  /** Publishes in order; resolves only when the bus has durably accepted every event. */
  publish(events: OutgoingEvent[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Stops consumers and flushes the producer. */
  close(): Promise<void>;
}

/** Checks that a subscription names exactly one kind of handler. */
export function assertOneHandler(options: SubscribeOptions): void {
  if (Boolean(options.handler) === Boolean(options.batchHandler)) {
    throw new Error(`Consumer group ${options.groupId}: give exactly one of handler and batchHandler`);
  }
}
