import type { ConnectionOptions } from 'node:tls';
import {
  Kafka,
  KafkaJSError,
  type EachBatchPayload,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachMessagePayload,
  type IHeaders,
  type logCreator,
  type Producer,
  type RetryOptions,
  type SASLOptions,
} from 'kafkajs';
import { encodeEvent, decodeEvent } from '../events/registry';
import type { EventEnvelope } from '../events/envelope';
import type { Logger } from '../logging';
import { fixKafkajsIdleLoop } from './kafkajs-request-queue';
import { attemptWithGrowingWaits, growingWait, wakeableDelay } from './growing-waits';
import { assertOneHandler, type EventBus, type EventMeta, type OutgoingEvent, type SubscribeOptions, type Subscription } from './bus';

/** Partitions and replication of the topics the bus creates. Omitted: the broker's defaults. */
export interface TopicSettings {
  numPartitions?: number;
  replicationFactor?: number;
}

/** Consumer group timings. The defaults favour quick joins and quick failover. */
export interface ConsumerSettings {
  /** Broker's classic-group minimum is 6 s by default. */
  sessionTimeout: number;
  rebalanceTimeout: number;
  heartbeatInterval: number;
  /** Longest a fetch waits for data; also bounds how long `stop()` waits for an idle fetch. */
  maxWaitTimeInMs: number;
}

export interface KafkaEventBusOptions {
  brokers: string[];
  clientId: string;
  /**
   * Prepended to every topic name and every consumer group id, so deployments (or test runs)
   * sharing a cluster stay apart. Handlers still see the logical topic name.
   */
  topicPrefix?: string;
  logger: Logger;
  /** Settings of topics created by `ensureTopics` and by first use. */
  topicDefaults?: TopicSettings;
  /**
   * Create missing topics on first publish/subscribe (default true). Turn off where topics are
   * provisioned by the platform (e.g. an operator's KafkaTopic resources) and clients may not create.
   */
  createTopics?: boolean;
  consumer?: Partial<ConsumerSettings>;
  /** Backoff between attempts of a failing handler: doubles from `initialDelayMs` up to `maxDelayMs`. */
  handlerRetry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Producer retries before `publish` rejects (the caller, e.g. the outbox relay, retries later). */
  producerRetry?: RetryOptions;
  ssl?: boolean | ConnectionOptions;
  sasl?: SASLOptions;
  connectionTimeout?: number;
  requestTimeout?: number;
  /**
   * Longest wait in `close` for the producer and admin clients to disconnect (default 3 s). With
   * the broker up they take milliseconds; with it down kafkajs goes on retrying for seconds,
   * which would take a shutdown's whole budget from the steps after it.
   */
  disconnectWaitMs?: number;
}

const DEFAULT_CONSUMER: ConsumerSettings = {
  sessionTimeout: 10_000,
  rebalanceTimeout: 15_000,
  heartbeatInterval: 1_000,
  maxWaitTimeInMs: 500,
};

interface ActiveSubscription {
  consumer: Consumer;
  stopping: boolean;
  /** The group's name on the broker when it is deleted on stop (SubscribeOptions.ephemeral). */
  ephemeralGroup?: string;
  /** Cuts a handler's retry backoff (or a wait before subscribing again) short when the subscription stops. */
  wake?: () => void;
  stopped?: Promise<void>;
  /** Subscribing again after the consumer crashed for good (resubscribeAfterCrash). */
  recovering?: Promise<void>;
}

/** Thrown out of `eachMessage` to leave the offset uncommitted while stopping; kafkajs does not log it. */
class SubscriptionStopping extends KafkaJSError {
  constructor() {
    super('Subscription is stopping; the message stays uncommitted', { retriable: true });
  }
}

/**
 * The production event bus on Kafka (kafkajs).
 *
 * - Publishing: one idempotent producer (acks=all, one request in flight), connected on first use.
 *   Key = `aggregateId`, value = the JSON envelope, headers `event-id`, `event-type`,
 *   `event-schema-version`, `aggregate-type`. `publish` resolves once the broker acknowledged every
 *   event; events of one call keep their order per key. A failed publish discards the producer, so the
 *   next attempt starts a fresh idempotence session instead of tripping on stale sequence numbers.
 * - Consuming: one kafkajs consumer per subscription, messages handled one at a time per partition
 *   (or, with a `batchHandler`, in runs of consecutive messages of a partition).
 *   An offset is committed only after the handler succeeded; a failing handler is retried with
 *   backoff (heartbeating meanwhile) until it succeeds or the subscription stops. A message that is
 *   not a valid event is logged and skipped, since retrying cannot fix it.
 * - Topics and group ids get `topicPrefix` prepended. Topics are created when first used (unless
 *   `createTopics: false`), so nothing relies on the broker's auto-creation.
 */
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly consumerSettings: ConsumerSettings;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private producer?: Promise<Producer>;
  private admin?: Promise<Admin>;
  /** Physical topic name -> creation (or existence check) in progress or done. */
  private readonly ensured = new Map<string, Promise<void>>();
  private readonly subscriptions = new Set<ActiveSubscription>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly opts: KafkaEventBusOptions) {
    // Idle connections otherwise wake the process every millisecond (see kafkajs-request-queue.ts).
    fixKafkajsIdleLoop();
    this.prefix = opts.topicPrefix ?? '';
    this.logger = opts.logger.child({ component: 'kafka-bus' });
    this.consumerSettings = { ...DEFAULT_CONSUMER, ...opts.consumer };
    this.retryInitialMs = opts.handlerRetry?.initialDelayMs ?? 200;
    this.retryMaxMs = opts.handlerRetry?.maxDelayMs ?? 30_000;
    this.kafka = new Kafka({
      brokers: opts.brokers,
      clientId: opts.clientId,
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(opts.logger.child({ component: 'kafkajs' })),
      ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
      ...(opts.sasl !== undefined ? { sasl: opts.sasl } : {}),
      ...(opts.connectionTimeout !== undefined ? { connectionTimeout: opts.connectionTimeout } : {}),
      ...(opts.requestTimeout !== undefined ? { requestTimeout: opts.requestTimeout } : {}),
    });
  }

  /** The broker-side name of a logical topic. */
  topicName(topic: string): string {
    return this.prefix + topic;
  }

  /** The broker-side id of a logical consumer group. */
  groupName(groupId: string): string {
    return this.prefix + groupId;
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (this.closed) throw new Error('Event bus is closed');
    if (events.length === 0) return;
    const sending = this.send(events);
    this.inFlight.add(sending);
    try {
      await sending;
    } finally {
      this.inFlight.delete(sending);
    }
  }

  private async send(events: OutgoingEvent[]): Promise<void> {
    const byTopic = new Map<string, { key: string; value: string; headers: IHeaders }[]>();
    for (const { topic, event } of events) {
      const name = this.topicName(topic);
      const messages = byTopic.get(name) ?? [];
      messages.push({ key: event.aggregateId, value: encodeEvent(event), headers: eventHeaders(event) });
      byTopic.set(name, messages);
    }
    await this.ensurePhysicalTopics([...byTopic.keys()]);
    const connecting = this.connectProducer();
    const producer = await connecting;
    try {
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (err) {
      if (this.producer === connecting) {
        this.producer = undefined;
        producer.disconnect().catch(() => undefined);
      }
      throw err;
    }
  }

  /**
   * Creates the (logical) topics that do not exist yet; existing ones are left as they are.
   * Remembers what it ensured, so repeated calls cost nothing.
   */
  async ensureTopics(topics: string[], settings: TopicSettings = {}): Promise<void> {
    await this.ensurePhysicalTopics(
      topics.map((t) => this.topicName(t)),
      settings,
      true,
    );
  }

  private async ensurePhysicalTopics(names: string[], settings?: TopicSettings, explicit = false): Promise<void> {
    if (!explicit && this.opts.createTopics === false) return;
    const missing = [...new Set(names)].filter((n) => !this.ensured.has(n));
    if (missing.length > 0) {
      const creating = this.createMissing(missing, { ...this.opts.topicDefaults, ...settings });
      for (const n of missing) this.ensured.set(n, creating);
      creating.catch(() => {
        for (const n of missing) if (this.ensured.get(n) === creating) this.ensured.delete(n);
      });
    }
    await Promise.all(names.map((n) => this.ensured.get(n)));
  }

  private async createMissing(names: string[], settings: TopicSettings): Promise<void> {
    const admin = await this.connectAdmin();
    const existing = new Set(await admin.listTopics());
    const toCreate = names.filter((n) => !existing.has(n));
    if (toCreate.length === 0) return;
    // Returns false (no error) when another client created them meanwhile.
    await admin.createTopics({
      waitForLeaders: true,
      topics: toCreate.map((topic) => ({
        topic,
        ...(settings.numPartitions !== undefined ? { numPartitions: settings.numPartitions } : {}),
        ...(settings.replicationFactor !== undefined ? { replicationFactor: settings.replicationFactor } : {}),
      })),
    });
    this.logger.info({ topics: toCreate }, 'created topics');
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('Event bus is closed');
    assertOneHandler(options);
    const topics = options.topics.map((t) => this.topicName(t));
    await this.ensurePhysicalTopics(topics);
    const log = this.logger.child({ group: options.groupId });
    const sub: ActiveSubscription = { consumer: this.newConsumer(options), stopping: false, ...(options.ephemeral ? { ephemeralGroup: this.groupName(options.groupId) } : {}) };
    this.subscriptions.add(sub);
    try {
      await this.joinGroup(sub, options, topics, log);
    } catch (err) {
      this.subscriptions.delete(sub);
      throw err;
    }
    return { stop: () => this.stopSubscription(sub) };
  }

  private newConsumer(options: SubscribeOptions): Consumer {
    const s = this.consumerSettings;
    return this.kafka.consumer({
      groupId: this.groupName(options.groupId),
      sessionTimeout: s.sessionTimeout,
      rebalanceTimeout: s.rebalanceTimeout,
      heartbeatInterval: s.heartbeatInterval,
      maxWaitTimeInMs: s.maxWaitTimeInMs,
      allowAutoTopicCreation: false,
    });
  }

  /**
   * Connects `sub.consumer`, joins its group and runs it; resolves once joined. Then watches it:
   * kafkajs restarts a consumer after retriable errors only, and gives up on others for good (a
   * broker restart answers "Failed to find group coordinator", which it does not retry): the
   * consumer stops while the process goes on, its events unread. Such a crash subscribes again.
   */
  private async joinGroup(sub: ActiveSubscription, options: SubscribeOptions, topics: string[], log: Logger): Promise<void> {
    const consumer = sub.consumer;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true });
      // Resolve once the group is joined, so the caller knows partitions are assigned. Without
      // fromBeginning the start offset ("latest") is fixed by the first fetch, so wait for that too:
      // an event published after subscribe() resolved is then always seen.
      const waitForFetch = options.fromBeginning === false;
      const joined = new Promise<void>((resolve, reject) => {
        const offs: (() => void)[] = [];
        const settle = (fn: () => void) => {
          for (const off of offs) off();
          fn();
        };
        offs.push(
          consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
            const assigned = Object.values(payload.memberAssignment).some((partitions) => partitions.length > 0);
            if (!waitForFetch || !assigned) settle(resolve);
          }),
          consumer.on(consumer.events.FETCH, () => settle(resolve)),
          consumer.on(consumer.events.CRASH, ({ payload }) => {
            if (!payload.restart) settle(() => reject(payload.error));
          }),
        );
      });
      joined.catch(() => undefined); // observed below; guards against an unhandled rejection if run() throws first
      await consumer.run(
        options.batchHandler
          ? {
              autoCommit: true,
              // Offsets are resolved by deliverBatch, only after a run's handler succeeded.
              eachBatchAutoResolve: false,
              eachBatch: (payload) => this.deliverBatch(sub, options, payload, log),
            }
          : {
              autoCommit: true,
              eachMessage: (payload) => this.deliver(sub, options, payload, log),
            },
      );
      await joined;
    } catch (err) {
      await consumer.disconnect().catch(() => undefined);
      throw err;
    }
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || sub.stopping || sub.consumer !== consumer) return;
      log.error({ err: payload.error }, 'consumer stopped by an error kafkajs does not retry; subscribing again');
      // After any recovery still finishing (this consumer may be the one it just made).
      const next = (sub.recovering ?? Promise.resolve())
        .then(() => this.resubscribeAfterCrash(sub, options, topics, log))
        .catch((err: unknown) => log.error({ err }, 'subscribing again after the consumer crashed failed'));
      sub.recovering = next;
      void next.finally(() => {
        if (sub.recovering === next) sub.recovering = undefined;
      });
    });
  }

  /** A new consumer in the same group, tried with growing waits until it joins or the subscription stops. */
  private async resubscribeAfterCrash(sub: ActiveSubscription, options: SubscribeOptions, topics: string[], log: Logger): Promise<void> {
    await sub.consumer.disconnect().catch(() => undefined);
    const joined = await attemptWithGrowingWaits(
      async () => {
        sub.consumer = this.newConsumer(options);
        await this.joinGroup(sub, options, topics, log);
      },
      {
        minDelayMs: 1000,
        maxDelayMs: 30_000,
        isStopped: () => sub.stopping,
        onFailure: (err, attempt, retryInMs) => log.warn({ err, attempt, retryInMs }, 'could not subscribe again after the consumer crashed; trying again'),
        setWake: (wake) => (sub.wake = wake),
      },
    );
    if (!joined) return;
    if (sub.stopping) await sub.consumer.disconnect().catch(() => undefined);
    else log.info({ attempt: joined.attempt }, 'subscribed again after the consumer crashed');
  }

  private stopSubscription(sub: ActiveSubscription): Promise<void> {
    if (!sub.stopped) {
      sub.stopping = true;
      sub.wake?.();
      // A subscription being made again is given a moment to end (it stops what it made when it does).
      const recovering = sub.recovering ? Promise.race([sub.recovering, new Promise((resolve) => setTimeout(resolve, 2000).unref())]) : Promise.resolve();
      sub.stopped = recovering
        .then(() => sub.consumer.disconnect())
        .then(() => this.deleteEphemeralGroup(sub))
        .finally(() => this.subscriptions.delete(sub));
    }
    return sub.stopped;
  }

  private async deliver(
    sub: ActiveSubscription,
    options: SubscribeOptions,
    { topic, partition, message, heartbeat }: EachMessagePayload,
    log: Logger,
  ): Promise<void> {
    const where = { topic, partition, offset: message.offset };
    if (!message.value) {
      log.warn(where, 'skipping a message without a value');
      return;
    }
    let event: EventEnvelope;
    try {
      event = decodeEvent(message.value);
    } catch (err) {
      // Retrying cannot fix bad bytes; blocking the partition on them would stop every later event.
      log.error({ err, ...where, eventId: message.headers?.['event-id']?.toString() }, 'skipping a message that is not a valid event');
      return;
    }
    const meta = { topic: this.logicalTopic(topic), partition, offset: message.offset };
    for (let attempt = 1; ; attempt++) {
      if (sub.stopping) throw new SubscriptionStopping();
      try {
        await options.handler!(event, meta);
        return;
      } catch (err) {
        const delay = growingWait(attempt, this.retryInitialMs, this.retryMaxMs);
        log.warn({ err, ...where, eventId: event.id, eventType: event.type, attempt, retryInMs: delay }, 'event handler failed; retrying');
        await this.backoff(sub, delay, heartbeat);
      }
    }
  }

  /**
   * Hands a fetched batch to the batch handler in runs of at most `maxBatchSize` consecutive
   * events, and resolves a run's offsets only after its handler succeeded (retrying it with
   * backoff until then, like `deliver`). Messages that are not valid events are skipped.
   */
  private async deliverBatch(
    sub: ActiveSubscription,
    options: SubscribeOptions,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
    log: Logger,
  ): Promise<void> {
    const max = Math.max(1, options.maxBatchSize ?? 100);
    const topic = this.logicalTopic(batch.topic);
    let run: { event: EventEnvelope; meta: EventMeta }[] = [];
    let lastOffset: string | undefined;
    const flush = async () => {
      if (lastOffset === undefined) return;
      for (let attempt = 1; run.length > 0; attempt++) {
        if (sub.stopping) throw new SubscriptionStopping();
        try {
          await options.batchHandler!(run);
          break;
        } catch (err) {
          const delay = growingWait(attempt, this.retryInitialMs, this.retryMaxMs);
          log.warn({ err, topic: batch.topic, partition: batch.partition, events: run.length, attempt, retryInMs: delay }, 'batch handler failed; retrying');
          await this.backoff(sub, delay, heartbeat);
        }
      }
      resolveOffset(lastOffset);
      await heartbeat();
      run = [];
      lastOffset = undefined;
    };
    for (const message of batch.messages) {
      // Stopping or rebalanced: leave the unhandled rest (and the run so far) unresolved for redelivery.
      if (!isRunning() || isStale()) return;
      lastOffset = message.offset;
      if (!message.value) {
        log.warn({ topic: batch.topic, partition: batch.partition, offset: message.offset }, 'skipping a message without a value');
        continue;
      }
      try {
        run.push({ event: decodeEvent(message.value), meta: { topic, partition: batch.partition, offset: message.offset } });
      } catch (err) {
        log.error(
          { err, topic: batch.topic, partition: batch.partition, offset: message.offset, eventId: message.headers?.['event-id']?.toString() },
          'skipping a message that is not a valid event',
        );
        continue;
      }
      if (run.length >= max) await flush();
    }
    await flush();
  }

  /** Waits `ms`, heartbeating so the group keeps this member, and returns early when stopping. */
  private async backoff(sub: ActiveSubscription, ms: number, heartbeat: () => Promise<void>): Promise<void> {
    const until = Date.now() + ms;
    while (!sub.stopping) {
      const left = until - Date.now();
      if (left <= 0) return;
      await wakeableDelay(Math.min(left, this.consumerSettings.heartbeatInterval), (wake) => (sub.wake = wake));
      if (!sub.stopping) await heartbeat();
    }
  }

  private logicalTopic(topic: string): string {
    return topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : topic;
  }

  /** An ephemeral subscription's group, once its consumer left it; a failure is only logged (retention removes it later). */
  private async deleteEphemeralGroup(sub: ActiveSubscription): Promise<void> {
    if (!sub.ephemeralGroup) return;
    try {
      await (await this.connectAdmin()).deleteGroups([sub.ephemeralGroup]);
    } catch (err) {
      this.logger.warn({ err, group: sub.ephemeralGroup }, 'could not delete the consumer group of this process');
    }
  }

  /** Stops every consumer, waits for publishes in flight, then disconnects the producer. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((s) => this.stopSubscription(s)));
    await Promise.allSettled([...this.inFlight]);
    const producer = this.producer;
    const admin = this.admin;
    this.producer = undefined;
    this.admin = undefined;
    const disconnected = Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const waitMs = this.opts.disconnectWaitMs ?? 3000;
    const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    const done = await Promise.race([disconnected, gaveUp]);
    clearTimeout(timer);
    if (!done) this.logger.warn({ waitMs }, 'the Kafka clients did not disconnect in time (is the broker reachable?); leaving them');
  }

  private connectProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: true,
        // Strict order across retries, which kafkajs's idempotence does not otherwise guarantee.
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
        retry: { retries: 5, ...this.opts.producerRetry },
      });
      const connecting = producer.connect().then(
        () => producer,
        (err: unknown) => {
          if (this.producer === connecting) this.producer = undefined;
          throw err;
        },
      );
      this.producer = connecting;
    }
    return this.producer;
  }

  private connectAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(
        () => admin,
        (err: unknown) => {
          if (this.admin === connecting) this.admin = undefined;
          throw err;
        },
      );
      this.admin = connecting;
    }
    return this.admin;
  }
}

function eventHeaders(event: EventEnvelope): IHeaders {
  return {
    'event-id': event.id,
    'event-type': event.type,
    'event-schema-version': String(event.schemaVersion),
    'aggregate-type': event.aggregateType,
  };
}

/**
 * kafkajs errors that only say a broker cannot be reached (refused, timed out, not resolved):
 * while the broker is down each connection attempt of each client logs one (about three a second
 * per service), and every one is retried, by kafkajs or by our relay and persistent
 * subscriptions, which say so themselves. Other errors of the same namespaces (a TLS certificate,
 * SASL, a protocol error reply) do not mend themselves and stay errors.
 */
const UNREACHABLE_REASON = String.raw`(Connection error: (connect |getaddrinfo )?(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT)\b|Connection timeout)`;
const UNREACHABLE_BROKER = new RegExp(`^(${UNREACHABLE_REASON}|Failed to connect to seed broker, trying another broker from the list: ${UNREACHABLE_REASON})`);

/** The text of a kafkajs log line's message, which is sometimes an Error (brokerPool.js). */
function kafkaLineText(message: unknown): string {
  return typeof message === 'string' ? message : message instanceof Error ? message.message : String(message);
}

/** The pino level of one kafkajs log line, or null to drop it. */
export function kafkaLineLevel(namespace: string, level: logLevel, message: unknown): 'error' | 'warn' | 'info' | 'debug' | null {
  const text = kafkaLineText(message);
  // Our producer resets itself after a failed publish, so bounded retries are deliberate.
  if (text.startsWith('Limiting retries for the idempotent producer')) return null;
  if (level === logLevel.ERROR) return (namespace === 'Connection' || namespace === 'BrokerPool') && UNREACHABLE_BROKER.test(text) ? 'warn' : 'error';
  if (level === logLevel.WARN) return 'warn';
  if (level === logLevel.INFO) return 'info';
  return 'debug';
}

/** Routes kafkajs's own log lines into our pino logger. */
function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log as Record<string, unknown> & { message: unknown };
      const pinoLevel = kafkaLineLevel(namespace, level, message);
      if (pinoLevel) logger[pinoLevel]({ namespace, ...extra }, kafkaLineText(message));
    };
}
