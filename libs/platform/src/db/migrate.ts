import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logging';
import { CONNECTION_DEFAULTS } from './pool';

/** Migrations every service schema gets: the outbox and inbox tables. */
export const PLATFORM_MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

export interface MigrationSource {
  /** Prefix that keeps names unique across sources, e.g. 'platform' or 'service'. */
  namespace: string;
  dir: string;
}

export interface MigrateOptions {
  connectionString: string;
  /** The service's own Postgres schema; every migration runs with it as search_path. */
  schema: string;
  sources: MigrationSource[];
  logger?: Logger;
  /**
   * How long a file may wait for a lock (default 5 s), and the waits before trying it again after
   * such a time-out (default 1, 2, 4, 8, 16, 30, 30 and 30 s: two minutes in all, within the
   * migration Job's deadline). See `migrate`.
   */
  lockWait?: { timeoutMs: number; retryWaitsMs: number[] };
}

const DEFAULT_LOCK_WAIT = { timeoutMs: 5_000, retryWaitsMs: [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000] };
const LOCK_NOT_AVAILABLE = '55P03';

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Applies versioned SQL files (`NNNN_name.sql`, in name order) to one schema. A session advisory
 * lock makes concurrent runs wait for each other, so running it twice or from two pods is safe;
 * each file runs in its own transaction and is recorded with a checksum, and an applied file that
 * was later edited stops the run.
 *
 * A file waits at most `lockWait.timeoutMs` for each lock it needs, then is rolled back and tried
 * again later: the release still serving runs its queries meanwhile. Without the bound, an
 * `ALTER TABLE` queued behind one long transaction would queue every later query on that table
 * behind itself, and the running release would stop answering until the migration got its lock.
 */
export async function migrate(opts: MigrateOptions): Promise<MigrationResult> {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`Invalid schema name: ${opts.schema}`);
  const files = await listMigrations(opts.sources);
  const client = new pg.Client({ ...CONNECTION_DEFAULTS, connectionString: opts.connectionString });
  await client.connect();
  const result: MigrationResult = { applied: [], skipped: [] };
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`pf-migrate:${opts.schema}`]);
    // CREATE SCHEMA, even IF NOT EXISTS, needs CREATE on the database. A role that was given its
    // schema by the database's owner (deploy/k8s: the CloudNativePG bootstrap) has no such right
    // and needs none, so only create the schema when it is missing.
    const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [opts.schema]);
    if (existing.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${opts.schema}".schema_migrations (
         name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(
      `SELECT name, checksum FROM "${opts.schema}".schema_migrations`,
    );
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    for (const file of files) {
      const sql = await readFile(file.path, 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = applied.get(file.name);
      if (previous !== undefined) {
        if (previous !== checksum) {
          throw new Error(`Migration ${file.name} in schema ${opts.schema} was changed after it was applied`);
        }
        result.skipped.push(file.name);
        continue;
      }
      const lockWait = opts.lockWait ?? DEFAULT_LOCK_WAIT;
      for (let attempt = 0; ; attempt += 1) {
        await client.query('BEGIN');
        try {
          await client.query(`SET LOCAL search_path TO "${opts.schema}"`);
          await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockWait.timeoutMs))}`);
          await client.query(sql);
          await client.query(`INSERT INTO "${opts.schema}".schema_migrations (name, checksum) VALUES ($1, $2)`, [
            file.name,
            checksum,
          ]);
          await client.query('COMMIT');
          break;
        } catch (err) {
          await client.query('ROLLBACK');
          const wait = lockWait.retryWaitsMs[attempt];
          if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE && wait !== undefined) {
            opts.logger?.warn({ schema: opts.schema, migration: file.name, attempt: attempt + 1, retryInMs: wait }, 'migration waited too long for a lock; trying it again');
            await new Promise((resolve) => setTimeout(resolve, wait));
            continue;
          }
          throw new Error(`Migration ${file.name} failed in schema ${opts.schema}: ${(err as Error).message}`, { cause: err });
        }
      }
      opts.logger?.info({ schema: opts.schema, migration: file.name }, 'migration applied');
      result.applied.push(file.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`pf-migrate:${opts.schema}`]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Names (as recorded, `namespace/file`) of the migrations in `sources` that `schema` has not
 * applied: all of them when it has no record yet. Applied migrations the sources do not name (a
 * newer release's, seen by an older one rolled back to) are not an issue and are not reported.
 */
export async function pendingMigrations(opts: Omit<MigrateOptions, 'logger'> & { connectTimeoutMs?: number }): Promise<string[]> {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`Invalid schema name: ${opts.schema}`);
  const files = await listMigrations(opts.sources);
  const client = new pg.Client({ connectionString: opts.connectionString, connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000 });
  // A connection the server drops is reported as an 'error' event, which unlistened ends the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
      `"${opts.schema}".schema_migrations`,
    ]);
    if (!rows[0]?.present) return files.map((f) => f.name);
    const applied = await client.query<{ name: string }>(`SELECT name FROM "${opts.schema}".schema_migrations`);
    const names = new Set(applied.rows.map((r) => r.name));
    return files.map((f) => f.name).filter((name) => !names.has(name));
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function listMigrations(sources: MigrationSource[]): Promise<{ name: string; path: string }[]> {
  const out: { name: string; path: string }[] = [];
  for (const source of sources) {
    const entries = (await readdir(source.dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
    for (const f of entries) out.push({ name: `${source.namespace}/${f}`, path: path.join(source.dir, f) });
  }
  return out;
}

/** The standard sources for a service: platform tables first, then the service's own files. */
export function serviceMigrationSources(serviceMigrationsDir: string): MigrationSource[] {
  return [
    { namespace: 'platform', dir: PLATFORM_MIGRATIONS_DIR },
    { namespace: 'service', dir: serviceMigrationsDir },
  ];
}
