// The real infrastructure a benchmark runs on (PostgreSQL, Redis, a Kafka broker on 127.0.0.1,
// as in the tests), and the clean-up of what a run left in Redis and Kafka.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createClient } from 'redis';

const run = promisify(execFile);

export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const KAFKA_BROKERS = (process.env.BENCH_KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');

/** Starts whatever is missing (scripts/infra.sh up: PostgreSQL, Redis, the KRaft broker). */
export async function ensureInfrastructure(root) {
  try {
    await run('bash', [path.join(root, 'scripts/infra.sh'), 'up'], { timeout: 300_000 });
  } catch (err) {
    throw new Error(`scripts/infra.sh up failed: ${err.stderr || err.stdout || err.message}`);
  }
}

/** Deletes every Redis key under `prefix` (a run's own prefix, never a shared one). */
export async function deleteRedisKeys(prefix) {
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => {});
  await client.connect();
  try {
    const keys = [];
    for await (const batch of client.scanIterator({ MATCH: `${escapeGlob(prefix)}*`, COUNT: 500 })) {
      keys.push(...(Array.isArray(batch) ? batch : [batch]));
    }
    if (keys.length > 0) await client.del(keys);
    return keys.length;
  } finally {
    await client.quit().catch(() => client.destroy?.());
  }
}

/** Deletes the topics and consumer groups under a run's own prefix. */
export async function deleteKafkaPrefix(prefix) {
  const admin = new Kafka({ brokers: KAFKA_BROKERS, clientId: 'bench-cleanup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    return { groups: groups.length, topics: topics.length };
  } finally {
    await admin.disconnect();
  }
}

function escapeGlob(s) {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}
