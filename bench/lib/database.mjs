// A bench database on the local PostgreSQL: created fresh, migrated with each service's own
// migration entry (dist/migrate.js, as in production), dropped at the end.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { baseEnv } from './processes.mjs';

const run = promisify(execFile);

export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * @param {string} name database name (lowercase letters, digits, underscores)
 * @returns {Promise<{ name: string, url: string, drop(): Promise<void> }>}
 */
export async function createBenchDatabase(name) {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  await adminQuery(`CREATE DATABASE ${name}`);
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** Runs a service's migration process (`<service>/dist/migrate.js`) against `databaseUrl`. */
export async function migrateService(migrateScript, databaseUrl) {
  try {
    await run(process.execPath, [migrateScript], {
      env: { ...baseEnv(), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      timeout: 120_000,
    });
  } catch (err) {
    throw new Error(`migration ${migrateScript} failed: ${err.stderr || err.stdout || err.message}`);
  }
}

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
