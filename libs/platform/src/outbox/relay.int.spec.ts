import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import type { EventBus, OutgoingEvent, Subscription } from '../bus/bus';
import { KafkaEventBus } from '../bus/kafka';
import { TeamCreated, TeamUpdated } from '../events/accounts';
import type { EventEnvelope } from '../events/envelope';
import { TOPICS } from '../events/topics';
import { createLogger } from '../logging';
import { createTestDatabase, eventually, freePort, testInfra, uniqueSuffix, type TestDatabase } from '../testing/infra';
import { recordingLogger } from '../testing/recorded-logs';
import { applyOnce } from './inbox';
import { appendToOutbox, newEvent } from './outbox';
import { OutboxRelay } from './relay';
import { pgSql, type RawSql } from './sql';

/**
 * The outbox path end to end on real Postgres and a real Kafka broker: a producer schema `t` whose
 * "use case" changes a team row and appends its event in one transaction, the relay publishing to
 * Kafka, and a consumer in schema `c` that keeps a read model through the inbox (`applyOnce`).
 * The read model counts applications, so an event applied twice would show.
 */
const logger = createLogger('relay-test', process.env.TEST_LOG_LEVEL ?? 'silent');

const SCRATCH_MIGRATION = `
CREATE TABLE team (code TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE team_view (code TEXT PRIMARY KEY, name TEXT NOT NULL, applied INT NOT NULL);
`;

describe('outbox relay (real Postgres and Kafka)', () => {
  let migrationsDir: string;
  let db: TestDatabase;
  let pool: pg.Pool;
  let prefix: string;
  let producerBus: KafkaEventBus;
  let consumerBus: KafkaEventBus;
  let subscription: Subscription;
  const relays: OutboxRelay[] = [];
  /** Every delivery the consumer got, duplicates included. */
  const deliveries = new Map<string, number>();
  /** Per aggregate, the sequence numbers (from the team name) in the order they were applied. */
  const applied = new Map<string, number[]>();

  async function inTransaction<R>(fn: (tx: RawSql, client: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(pgSql(client), client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** The producer's use case: the state change and its event commit together. */
  async function renameTeam(code: string, seq: number): Promise<OutgoingEvent> {
    const name = `${code}-${seq}`;
    const event = newEvent(seq === 0 ? TeamCreated : TeamUpdated, code, { teamCode: code, name, active: true });
    await inTransaction(async (tx) => {
      await tx.$executeRawUnsafe(
        'INSERT INTO t.team (code, name) VALUES ($1, $2) ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name',
        code,
        name,
      );
      await appendToOutbox(tx, 't', [event]);
    });
    return event;
  }

  async function view(code: string): Promise<{ name: string; applied: number } | undefined> {
    const { rows } = await pool.query<{ name: string; applied: number }>('SELECT name, applied FROM c.team_view WHERE code = $1', [code]);
    return rows[0];
  }

  async function unpublished(): Promise<number> {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM t.outbox_event WHERE published_at IS NULL');
    return rows[0]!.n;
  }

  function newRelay(bus: EventBus = producerBus, batchSize = 50): OutboxRelay {
    const relay = new OutboxRelay({ pool, schema: 't', bus, logger, batchSize, pollIntervalMs: 100 });
    relays.push(relay);
    return relay;
  }

  function seqOf(event: EventEnvelope): number {
    return Number((event.payload as { name: string }).name.split('-').pop());
  }

  beforeAll(async () => {
    migrationsDir = await mkdtemp(path.join(tmpdir(), 'pf-relay-test-'));
    await writeFile(path.join(migrationsDir, '0001_scratch.sql'), SCRATCH_MIGRATION);
    db = await createTestDatabase([
      { schema: 't', migrationsDir },
      { schema: 'c', migrationsDir },
    ]);
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    // A backend terminated on purpose (below) surfaces here; the relay sees it on its own query.
    pool.on('error', () => undefined);
    prefix = `r${uniqueSuffix()}.`;
    const busOptions = { brokers: testInfra.kafkaBrokers, topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } };
    producerBus = new KafkaEventBus({ ...busOptions, clientId: 'relay-test-producer' });
    consumerBus = new KafkaEventBus({ ...busOptions, clientId: 'relay-test-consumer' });
    await producerBus.ensureTopics([TOPICS.teams], { numPartitions: 3 });
    subscription = await consumerBus.subscribe({
      groupId: 'team-view',
      topics: [TOPICS.teams],
      handler: async (event) => {
        deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
        const payload = event.payload as { teamCode: string; name: string };
        const appliedNow = await applyOnce(inTransaction, 'c', 'team-view', event, async (tx) => {
          await tx.$executeRawUnsafe(
            `INSERT INTO c.team_view (code, name, applied) VALUES ($1, $2, 1)
             ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, applied = c.team_view.applied + 1`,
            payload.teamCode,
            payload.name,
          );
        });
        if (appliedNow) applied.set(event.aggregateId, [...(applied.get(event.aggregateId) ?? []), seqOf(event)]);
      },
    });
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });

  afterAll(async () => {
    await subscription?.stop();
    await Promise.all([producerBus?.close(), consumerBus?.close()]);
    await pool?.end();
    await db?.drop();
    await rm(migrationsDir, { recursive: true, force: true });
    const admin = new Kafka({ brokers: testInfra.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [producerBus.topicName(TOPICS.teams)] }).catch(() => undefined);
    await admin.deleteGroups([consumerBus.groupName('team-view')]).catch(() => undefined);
    await admin.disconnect();
  });

  it('publishes an event committed with its state change to a Kafka consumer', async () => {
    const code = `a${uniqueSuffix()}`;
    await newRelay().start();
    const event = await renameTeam(code, 0);
    await eventually(async () => ((await view(code))?.applied === 1 ? true : undefined));
    expect(await view(code)).toEqual({ name: `${code}-0`, applied: 1 });
    expect(deliveries.get(event.event.id)).toBe(1);
    expect(await unpublished()).toBe(0);
  });

  it('is woken by the commit (NOTIFY) instead of waiting for its next poll', async () => {
    const code = `n${uniqueSuffix()}`;
    const relay = new OutboxRelay({ pool, schema: 't', bus: producerBus, logger, pollIntervalMs: 600_000 });
    relays.push(relay);
    await relay.start();
    await renameTeam(code, 0);
    // Far below the poll interval: only the notification can have woken it.
    await eventually(async () => ((await view(code)) ? true : undefined), 10_000);
  });

  it('lingers after a notified commit, so the commits of that time leave as one batch', async () => {
    const codes = Array.from({ length: 4 }, () => `l${uniqueSuffix()}`);
    const batches: number[] = [];
    const countingBus: EventBus = {
      publish: async (batch) => {
        if (batch.some((e) => codes.includes(e.event.aggregateId))) batches.push(batch.length);
        await producerBus.publish(batch);
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    const relay = new OutboxRelay({ pool, schema: 't', bus: countingBus, logger, pollIntervalMs: 600_000, lingerMs: 3_000 });
    relays.push(relay);
    await relay.start();
    // Its first pass over: a warm-up commit published (a pass still running at start took the
    // first of the four alone on a loaded machine).
    const warmUp = `w${uniqueSuffix()}`;
    await renameTeam(warmUp, 0);
    await eventually(async () => ((await view(warmUp)) ? true : undefined), 10_000);
    // Four transactions, well within the linger that the first one's notification started.
    for (const code of codes) await renameTeam(code, 0);
    await eventually(async () => ((await view(codes[3]!)) ? true : undefined), 10_000);
    expect(batches).toEqual([4]);
  });

  it('does not miss a commit notified while it was busy publishing', async () => {
    const first = `b${uniqueSuffix()}`;
    const second = `b${uniqueSuffix()}`;
    let injected = false;
    const busyBus: EventBus = {
      publish: async (batch) => {
        await producerBus.publish(batch);
        if (!injected) {
          injected = true;
          // Commits (and notifies) while this relay is between its SELECT and its COMMIT.
          await renameTeam(second, 0);
          await new Promise((r) => setTimeout(r, 200));
        }
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    const relay = new OutboxRelay({ pool, schema: 't', bus: busyBus, logger, pollIntervalMs: 600_000 });
    relays.push(relay);
    await renameTeam(first, 0);
    await relay.start();
    await eventually(async () => ((await view(second)) ? true : undefined), 10_000);
    expect(await view(first)).toBeDefined();
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const rolledBack = `rb${uniqueSuffix()}`;
    const committed = `ok${uniqueSuffix()}`;
    await newRelay().start();
    const failure = inTransaction(async (tx) => {
      await tx.$executeRawUnsafe('INSERT INTO t.team (code, name) VALUES ($1, $2)', rolledBack, 'x');
      await appendToOutbox(tx, 't', [newEvent(TeamCreated, rolledBack, { teamCode: rolledBack, name: `${rolledBack}-0`, active: true })]);
      throw new Error('use case failed after writing');
    });
    await expect(failure).rejects.toThrow('use case failed');
    // Same key as the rolled-back one, so it shares its partition and comes after it.
    await inTransaction(async (tx) => {
      await appendToOutbox(tx, 't', [newEvent(TeamCreated, rolledBack, { teamCode: committed, name: `${committed}-0`, active: true })]);
    });
    await eventually(async () => ((await view(committed)) ? true : undefined));
    expect(await view(rolledBack)).toBeUndefined();
    const { rows } = await pool.query(`SELECT 1 FROM t.team WHERE code = $1`, [rolledBack]);
    expect(rows).toHaveLength(0);
  });

  it('a batch published twice (published_at reset) changes the consumer state once', async () => {
    const code = `d${uniqueSuffix()}`;
    const events: OutgoingEvent[] = [];
    for (let i = 0; i < 5; i++) events.push(await renameTeam(code, i));
    const relay = newRelay();
    expect(await relay.publishBatch()).toBe(5);
    await eventually(async () => ((await view(code))?.applied === 5 ? true : undefined));

    // As if the relay crashed after Kafka acknowledged but before its UPDATE committed.
    await pool.query(`UPDATE t.outbox_event SET published_at = NULL WHERE event_key = $1`, [code]);
    expect(await relay.publishBatch()).toBe(5);
    await eventually(() => (events.every((e) => deliveries.get(e.event.id) === 2) ? true : undefined));
    expect(await view(code)).toEqual({ name: `${code}-4`, applied: 5 });
    expect(applied.get(code)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a relay whose database connection dies between publish and commit republishes on restart; state as if once', async () => {
    const code = `k${uniqueSuffix()}`;
    const events: OutgoingEvent[] = [];
    for (let i = 0; i < 4; i++) events.push(await renameTeam(code, i));
    // The real bus, plus a crash right after the broker acknowledged: the relay's own session is
    // killed, so its "mark published" never commits.
    let crashes = 0;
    let killed: unknown[] = [];
    const crashingBus: EventBus = {
      publish: async (batch) => {
        await producerBus.publish(batch);
        if (crashes++ === 0) {
          // The relay's session is the one holding the publisher's advisory lock.
          ({ rows: killed } = await pool.query(
            `SELECT pg_terminate_backend(l.pid) AS killed FROM pg_locks l
              JOIN pg_database d ON d.oid = l.database AND d.datname = current_database()
             WHERE l.locktype = 'advisory' AND l.granted`,
          ));
        }
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    // Checked out here: an assertion thrown inside publish would pass as the relay's failure.
    // pg's words for its session killed under it: the termination itself, or the client it left unusable.
    await expect(newRelay(crashingBus).publishBatch()).rejects.toThrow(/terminat|connection error/i);
    expect(killed).toEqual([{ killed: true }]);
    expect(await unpublished()).toBe(4);
    await eventually(() => (events.every((e) => deliveries.get(e.event.id) === 1) ? true : undefined));

    // The restarted relay (a fresh instance) publishes the batch again.
    await newRelay().start();
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
    await eventually(() => (events.every((e) => deliveries.get(e.event.id) === 2) ? true : undefined));
    expect(await view(code)).toEqual({ name: `${code}-3`, applied: 4 });
    expect(applied.get(code)).toEqual([0, 1, 2, 3]);
  });

  it('a relay that fails halfway through publishing a batch loses nothing once it runs again', async () => {
    const code = `h${uniqueSuffix()}`;
    const events: OutgoingEvent[] = [];
    for (let i = 0; i < 6; i++) events.push(await renameTeam(code, i));
    let failed = false;
    const halfBus: EventBus = {
      publish: async (batch) => {
        if (!failed) {
          failed = true;
          await producerBus.publish(batch.slice(0, 3));
          throw new Error('connection to the broker lost mid-batch');
        }
        await producerBus.publish(batch);
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    // Its own loop retries after the failure (with backoff), like a restarted relay would.
    await newRelay(halfBus).start();
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined));
    await eventually(async () => ((await view(code))?.applied === 6 ? true : undefined));
    expect(events.slice(0, 3).map((e) => deliveries.get(e.event.id))).toEqual([2, 2, 2]);
    expect(applied.get(code)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a relay stopped mid-stream and a new one started lose nothing and apply each event once', async () => {
    const code = `s${uniqueSuffix()}`;
    const events: OutgoingEvent[] = [];
    for (let i = 0; i < 30; i++) events.push(await renameTeam(code, i));
    // The first relay is told to stop while its second batch is on its way to the broker.
    let batches = 0;
    let first: OutboxRelay | undefined = undefined;
    let stopping: Promise<void> | undefined;
    const stopAfterTwo: EventBus = {
      publish: async (batch) => {
        if (++batches === 2) stopping = first!.stop();
        await producerBus.publish(batch);
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    first = newRelay(stopAfterTwo, 4);
    await first.start();
    await eventually(() => (stopping ? true : undefined));
    await stopping;
    expect(batches).toBe(2);
    // It finished the batch in flight and stopped: 8 published, 22 left for the next relay.
    expect(await unpublished()).toBe(22);
    await newRelay(producerBus, 4).start();
    await eventually(async () => ((await view(code))?.applied === 30 ? true : undefined));
    expect(await unpublished()).toBe(0);
    expect(applied.get(code)).toEqual(events.map((_, i) => i));
  });

  it('only one relay publishes at a time (advisory lock)', async () => {
    const code = `l${uniqueSuffix()}`;
    for (let i = 0; i < 3; i++) await renameTeam(code, i);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['pf-outbox:t']);
      // Another publisher holds the lock: this relay publishes nothing and does not wait.
      expect(await newRelay().publishBatch()).toBe(0);
      expect(await unpublished()).toBe(3);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    expect(await newRelay().publishBatch()).toBe(3);
    await eventually(async () => ((await view(code))?.applied === 3 ? true : undefined));
  });

  it('two relays running side by side never publish concurrently and keep each aggregate in order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let publishes = 0;
    const watchedBus: EventBus = {
      publish: async (batch) => {
        inFlight += 1;
        publishes += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          await producerBus.publish(batch);
        } finally {
          inFlight -= 1;
        }
      },
      subscribe: (o) => producerBus.subscribe(o),
      close: async () => undefined,
    };
    await newRelay(watchedBus, 3).start();
    await newRelay(watchedBus, 3).start();
    const codes = [0, 1, 2, 3].map((i) => `p${i}${uniqueSuffix()}`);
    const perTeam = 12;
    // Writers for several aggregates commit concurrently while both relays run.
    await Promise.all(
      codes.map(async (code) => {
        for (let i = 0; i < perTeam; i++) await renameTeam(code, i);
      }),
    );
    for (const code of codes) {
      await eventually(async () => ((await view(code))?.applied === perTeam ? true : undefined));
      expect(applied.get(code)).toEqual(Array.from({ length: perTeam }, (_, i) => i));
    }
    expect(publishes).toBeGreaterThan(1);
    expect(maxInFlight).toBe(1);
  });

  it('a database out of reach is an outage, not an error: a warn line per 10 s while the relay keeps trying', async () => {
    const { logger: recorder, lines } = recordingLogger();
    const closed = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/x`, max: 1 });
    const relay = new OutboxRelay({ pool: closed, schema: 't', bus: producerBus, logger: recorder, pollIntervalMs: 100 });
    relays.push(relay);
    await relay.start();
    await eventually(async () => (lines.filter((l) => l.msg.startsWith('outbox relay failed to publish')).length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await relay.stop();
    await closed.end();
    const failures = lines.filter((l) => l.msg.startsWith('outbox relay failed to publish')).map(({ level, msg }) => ({ level, msg }));
    expect(failures).toEqual([{ level: 'warn', msg: 'outbox relay failed to publish: database unavailable (one line per 10 s)' }]);
  });
});
