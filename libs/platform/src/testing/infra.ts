import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { migrate, serviceMigrationSources } from '../db/migrate';

/** Connection facts of the real infrastructure tests run against (see scripts/test.sh). */
export const testInfra = {
  postgresAdminUrl: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  kafkaBrokers: (process.env.TEST_KAFKA_BROKERS ?? '127.0.0.1:19092').split(','),
};

/** A short random suffix that keeps suites apart: database names, topic prefixes, Redis keys. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one suite, with the named service schemas migrated. Suites never share
 * data and drop their database when done.
 */
export async function createTestDatabase(
  services: { schema: string; migrationsDir: string }[] = [],
): Promise<TestDatabase> {
  const name = `pf_test_${uniqueSuffix()}`;
  const admin = new pg.Client({ connectionString: testInfra.postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(testInfra.postgresAdminUrl, name);
  for (const s of services) {
    await migrate({ connectionString: url, schema: s.schema, sources: serviceMigrationSources(s.migrationsDir) });
  }
  return {
    url,
    name,
    async drop() {
      const c = new pg.Client({ connectionString: testInfra.postgresAdminUrl });
      await c.connect();
      try {
        // pg-pool's end() resolves before its connections have closed; a forced drop meanwhile
        // terminates backends whose clients are still closing, and those report it as an error
        // nobody listens to any more. Wait (briefly) for them to go; force the rest.
        for (let i = 0; i < 40; i++) {
          const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (rows[0]!.n === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Polls until `check` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`Condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Deletes the topics a suite made under its own prefix (the broker keeps them otherwise). */
export async function deleteTestTopics(prefix: string): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: testInfra.kafkaBrokers, clientId: 'test-topic-cleanup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}

/** A loopback port nothing listens on (yet): for a server a test starts, or one it means to be absent. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
