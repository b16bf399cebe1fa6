import { Kafka, KafkaJSNonRetriableError, logLevel, Partitioners, type KafkaMessage } from 'kafkajs';
import { TeamUpdated } from '../events/accounts';
import type { EventEnvelope } from '../events/envelope';
import { createLogger } from '../logging';
import { newEvent } from '../outbox/outbox';
import { eventually, testInfra, uniqueSuffix } from '../testing/infra';
import type { OutgoingEvent } from './bus';
import { KafkaEventBus, type KafkaEventBusOptions } from './kafka';

const logger = createLogger('kafka-bus-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const TOPIC = 'accounts.teams';

function teamEvent(teamCode: string, n: number): OutgoingEvent {
  return newEvent(TeamUpdated, teamCode, { teamCode, name: `${teamCode}-${n}`, active: true });
}

/** The sequence number a test put in the team name. */
function seqOf(event: EventEnvelope): number {
  return Number((event.payload as { name: string }).name.split('-').pop());
}

describe('KafkaEventBus (real broker)', () => {
  let prefix: string;
  const buses: KafkaEventBus[] = [];
  // An independent client that reads and writes raw bytes, to check the wire format.
  const raw = new Kafka({ brokers: testInfra.kafkaBrokers, clientId: 'kafka-bus-test-raw', logLevel: logLevel.NOTHING });

  function newBus(extra: Partial<KafkaEventBusOptions> = {}): KafkaEventBus {
    const bus = new KafkaEventBus({
      brokers: testInfra.kafkaBrokers,
      clientId: 'kafka-bus-test',
      topicPrefix: prefix,
      logger,
      handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 },
      ...extra,
    });
    buses.push(bus);
    return bus;
  }

  const prefixes: string[] = [];
  beforeEach(() => {
    prefix = `t${uniqueSuffix()}.`;
    prefixes.push(prefix);
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });

  afterAll(async () => {
    // Remove this suite's topics and groups (and only those) so the broker does not accumulate them.
    const mine = (name: string) => prefixes.some((p) => name.startsWith(p));
    const admin = raw.admin();
    await admin.connect();
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter(mine);
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter(mine);
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  async function readRaw(topic: string, count: number): Promise<KafkaMessage[]> {
    const consumer = raw.consumer({ groupId: `raw-${uniqueSuffix()}`, maxWaitTimeInMs: 200 });
    const seen: KafkaMessage[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message) });
      await eventually(() => (seen.length >= count ? true : undefined));
      return seen;
    } finally {
      await consumer.disconnect();
    }
  }

  it('publishes keyed by aggregate id with event headers, and a group receives each aggregate in order', async () => {
    const bus = newBus();
    await bus.ensureTopics([TOPIC], { numPartitions: 3 });
    const teams = ['alpha', 'bravo', 'charlie', 'delta'];
    const perTeam = 15;
    // Interleaved across several publish calls, as a relay would send them.
    const events = Array.from({ length: perTeam }, (_, n) => teams.map((t) => teamEvent(t, n))).flat();
    for (let i = 0; i < events.length; i += 7) await bus.publish(events.slice(i, i + 7));

    const received = new Map<string, { seq: number; partition: number }[]>();
    await bus.subscribe({
      groupId: 'ordering',
      topics: [TOPIC],
      handler: async (event, meta) => {
        expect(meta.topic).toBe(TOPIC); // logical name, prefix stripped
        const list = received.get(event.aggregateId) ?? [];
        list.push({ seq: seqOf(event), partition: meta.partition });
        received.set(event.aggregateId, list);
      },
    });
    await eventually(() => ([...received.values()].flat().length >= events.length ? true : undefined));
    for (const team of teams) {
      const list = received.get(team)!;
      expect(list.map((r) => r.seq)).toEqual(Array.from({ length: perTeam }, (_, n) => n));
      expect(new Set(list.map((r) => r.partition)).size).toBe(1);
    }
    // Spread over more than one partition, so the order above is per key, not a global accident.
    expect(new Set([...received.values()].map((l) => l[0]!.partition)).size).toBeGreaterThan(1);

    const messages = await readRaw(bus.topicName(TOPIC), events.length);
    const first = messages.find((m) => m.key?.toString() === 'alpha')!;
    const envelope = JSON.parse(first.value!.toString()) as EventEnvelope;
    expect(envelope.aggregateId).toBe('alpha');
    expect(first.headers?.['event-id']?.toString()).toBe(envelope.id);
    expect(first.headers?.['event-type']?.toString()).toBe('team.updated');
    expect(first.headers?.['event-schema-version']?.toString()).toBe('1');
    expect(bus.topicName(TOPIC)).toBe(`${prefix}${TOPIC}`);
  });

  it('delivers every event to each of two consumer groups', async () => {
    const bus = newBus();
    const events = Array.from({ length: 10 }, (_, n) => teamEvent(`team${n % 3}`, n));
    const a: string[] = [];
    const b: string[] = [];
    await bus.subscribe({ groupId: 'group-a', topics: [TOPIC], handler: async (e) => void a.push(e.id) });
    await bus.subscribe({ groupId: 'group-b', topics: [TOPIC], handler: async (e) => void b.push(e.id) });
    await bus.publish(events);
    const ids = events.map((e) => e.event.id).sort();
    await eventually(() => (a.length >= 10 && b.length >= 10 ? true : undefined));
    expect([...a].sort()).toEqual(ids);
    expect([...b].sort()).toEqual(ids);

    // Groups are prefixed too, so parallel runs with other prefixes never share offsets.
    const admin = raw.admin();
    await admin.connect();
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    await admin.disconnect();
    expect(groups).toEqual(expect.arrayContaining([`${prefix}group-a`, `${prefix}group-b`]));
  });

  it('a consumer kafkajs stops for good (an error it does not retry, as "Failed to find group coordinator" after a broker restart) subscribes again and reads on, losing nothing', async () => {
    const bus = newBus();
    const got: number[] = [];
    await bus.subscribe({ groupId: 'crashing', topics: [TOPIC], handler: async (e) => void got.push(seqOf(e)) });
    await bus.publish([teamEvent('crash', 1)]);
    await eventually(() => (got.length === 1 ? true : undefined));
    // The next delivery fails with an error kafkajs does not retry: its consumer crashes without
    // restarting (the error is ours here; after a broker restart it is the coordinator lookup's).
    const internals = bus as unknown as { deliver: (...args: unknown[]) => Promise<void> };
    const deliver = internals.deliver;
    let crashes = 0;
    internals.deliver = async function (this: unknown, ...args: unknown[]) {
      if (crashes === 0) {
        crashes++;
        throw new KafkaJSNonRetriableError('test: an error kafkajs does not retry');
      }
      return deliver.apply(this, args);
    };
    await bus.publish([teamEvent('crash', 2), teamEvent('crash', 3)]);
    // Subscribed again: the uncommitted event is read again, and those after it.
    await eventually(() => (got.length === 3 ? true : undefined), 60_000, 100);
    expect({ got, crashes }).toEqual({ got: [1, 2, 3], crashes: 1 });
    await bus.publish([teamEvent('crash', 4)]);
    await eventually(() => (got.length === 4 ? true : undefined), 30_000, 100);
  }, 90_000);

  it('an ephemeral group is deleted when its subscription stops, on close too; other groups stay', async () => {
    const bus = newBus();
    const seen: string[] = [];
    const gone = await bus.subscribe({ groupId: 'mine-alone', ephemeral: true, topics: [TOPIC], handler: async (e) => void seen.push(e.id) });
    await bus.subscribe({ groupId: 'mine-on-close', ephemeral: true, topics: [TOPIC], handler: async () => undefined });
    await bus.subscribe({ groupId: 'kept', topics: [TOPIC], handler: async () => undefined });
    await bus.publish([teamEvent('team1', 1)]);
    await eventually(() => (seen.length >= 1 ? true : undefined));
    const groups = async () => {
      const admin = raw.admin();
      await admin.connect();
      try {
        return (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
      } finally {
        await admin.disconnect();
      }
    };
    expect((await groups()).sort()).toEqual([`${prefix}kept`, `${prefix}mine-alone`, `${prefix}mine-on-close`]);
    await gone.stop();
    expect((await groups()).sort()).toEqual([`${prefix}kept`, `${prefix}mine-on-close`]);
    await bus.close();
    expect(await groups()).toEqual([`${prefix}kept`]);
  });

  it('retries a handler that fails, without losing the event or reordering the ones after it', async () => {
    const bus = newBus();
    const events = Array.from({ length: 5 }, (_, n) => teamEvent('retry', n));
    await bus.publish(events);
    const handled: number[] = [];
    let failures = 0;
    await bus.subscribe({
      groupId: 'retrying',
      topics: [TOPIC],
      handler: async (event) => {
        if (seqOf(event) === 2 && failures < 2) {
          failures += 1;
          throw new Error('database briefly unavailable');
        }
        handled.push(seqOf(event));
      },
    });
    await eventually(() => (handled.length >= 5 ? true : undefined));
    expect(failures).toBe(2);
    expect(handled).toEqual([0, 1, 2, 3, 4]);
  });

  it('commits only what the handler finished: a stop during retries leaves the event for the next member', async () => {
    const bus = newBus();
    await bus.publish([teamEvent('stuck', 0), teamEvent('stuck', 1)]);
    const first: number[] = [];
    let attempts = 0;
    const sub = await bus.subscribe({
      groupId: 'handover',
      topics: [TOPIC],
      handler: async (event) => {
        if (seqOf(event) === 1) {
          attempts += 1;
          throw new Error('keeps failing');
        }
        first.push(seqOf(event));
      },
    });
    await eventually(() => (attempts >= 2 ? true : undefined));
    await sub.stop();
    expect(first).toEqual([0]);

    const second: number[] = [];
    await bus.subscribe({ groupId: 'handover', topics: [TOPIC], handler: async (e) => void second.push(seqOf(e)) });
    await eventually(() => (second.length >= 1 ? true : undefined));
    expect(second).toEqual([1]);
  });

  it('batchHandler: runs of consecutive events in order, at most maxBatchSize, a failing run retried whole, offsets committed only after success', async () => {
    const bus = newBus();
    await bus.publish(Array.from({ length: 25 }, (_, n) => teamEvent('batch', n)));
    const runs: number[][] = [];
    let failed = false;
    const sub = await bus.subscribe({
      groupId: 'batches',
      topics: [TOPIC],
      maxBatchSize: 10,
      batchHandler: async (items) => {
        const seqs = items.map((i) => seqOf(i.event));
        expect(items.every((i) => i.meta.topic === TOPIC)).toBe(true);
        if (!failed && seqs.includes(12)) {
          failed = true;
          throw new Error('database briefly unavailable');
        }
        runs.push(seqs);
      },
    });
    await eventually(() => (runs.flat().length >= 25 ? true : undefined));
    expect(failed).toBe(true);
    expect(runs.flat()).toEqual(Array.from({ length: 25 }, (_, n) => n));
    expect(runs.every((r) => r.length <= 10)).toBe(true);
    await sub.stop();
    // Everything was committed: the group's next member starts after the last event.
    await bus.publish([teamEvent('batch', 25)]);
    const after: number[] = [];
    await bus.subscribe({ groupId: 'batches', topics: [TOPIC], batchHandler: async (items) => void after.push(...items.map((i) => seqOf(i.event))) });
    await eventually(() => (after.length >= 1 ? true : undefined));
    expect(after).toEqual([25]);
  });

  it('refuses a subscription with both or neither of handler and batchHandler', async () => {
    const bus = newBus();
    await expect(bus.subscribe({ groupId: 'none', topics: [TOPIC] })).rejects.toThrow(/exactly one/);
    await expect(bus.subscribe({ groupId: 'both', topics: [TOPIC], handler: async () => undefined, batchHandler: async () => undefined })).rejects.toThrow(/exactly one/);
  });

  it('logs and skips messages that are not valid events instead of retrying them forever', async () => {
    const bus = newBus();
    await bus.ensureTopics([TOPIC]);
    const producer = raw.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const badPayload = { ...TeamUpdated.create('poison', { teamCode: 'poison', name: 'x', active: true }), payload: { active: 'yes' } };
    await producer.send({
      topic: bus.topicName(TOPIC),
      messages: [{ key: 'poison', value: 'not json' }, { key: 'poison', value: JSON.stringify(badPayload) }],
    });
    await producer.disconnect();
    await bus.publish([teamEvent('poison', 7)]);
    const handled: EventEnvelope[] = [];
    await bus.subscribe({ groupId: 'poison', topics: [TOPIC], handler: async (e) => void handled.push(e) });
    await eventually(() => (handled.length >= 1 ? true : undefined));
    expect(handled.map(seqOf)).toEqual([7]);
  });

  it('close() waits for publishes in flight: every accepted event is on the broker afterwards', async () => {
    const bus = newBus();
    await bus.ensureTopics([TOPIC]);
    const events = Array.from({ length: 20 }, (_, n) => teamEvent('flush', n));
    const publishing = bus.publish(events);
    await bus.close();
    await publishing;
    await expect(bus.publish([teamEvent('flush', 99)])).rejects.toThrow('closed');

    const reader = newBus();
    const seen: number[] = [];
    await reader.subscribe({ groupId: 'after-close', topics: [TOPIC], handler: async (e) => void seen.push(seqOf(e)) });
    await eventually(() => (seen.length >= 20 ? true : undefined));
    expect(seen).toEqual(events.map((_, n) => n));
  });

  it('fromBeginning: false skips what was published before the group first joined', async () => {
    const bus = newBus();
    await bus.publish([teamEvent('late', 0)]);
    const seen: number[] = [];
    await bus.subscribe({ groupId: 'latest', topics: [TOPIC], fromBeginning: false, handler: async (e) => void seen.push(seqOf(e)) });
    await bus.publish([teamEvent('late', 1)]);
    await eventually(() => (seen.length >= 1 ? true : undefined));
    expect(seen).toEqual([1]);
  });
});
