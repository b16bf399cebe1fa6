import http from 'node:http';
import pg from 'pg';
import type { EventBus } from '../bus/bus';
import { InMemoryEventBus } from '../bus/memory';
import { closeServer, Lifecycle, listen } from '../http/lifecycle';
import type { JwtSignOptions } from '../identity';
import { createLogger, type Logger } from '../logging';
import { serviceRootApp } from '../service/root-app';
import type { ServiceDefinition, ServiceInstance } from '../service/service';
import { createTestDatabase, type TestDatabase } from './infra';

export interface ServeOptions {
  /** Verifies the identities tests sign with the same options. */
  jwt: JwtSignOptions;
  /** The service's own settings (its zod config); NODE_ENV is `test` unless given here. */
  env?: Record<string, string>;
  /**
   * Default: a fresh in-memory bus. Given or not, the served service owns it: `close()` closes it
   * after the service, as the production runner does.
   */
  bus?: EventBus;
  /** Start background work (outbox relay, consumers, timers). Default false: requests only. */
  startBackgroundWork?: boolean;
}

/** One service on a fresh, migrated database of its own, served over real HTTP on an ephemeral port. */
export interface ServedService {
  db: TestDatabase;
  bus: EventBus;
  instance: ServiceInstance;
  logger: Logger;
  /** For looking at rows directly (outbox, hashes, holds). */
  pool: pg.Pool;
  /** `http://127.0.0.1:<port>`: `/healthz`, `/readyz` and the service's own routes. */
  base: string;
  /** `${base}/graphql`. */
  graphqlUrl: string;
  /** Stops taking requests, stops the service, closes the bus and the pool, drops the database. */
  close(): Promise<void>;
}

/**
 * Starts `def` the way the production runner wires it (health routes with its readiness check in
 * front of the service's app), on a database no other suite sees.
 */
export async function serveOnTestDatabase(def: ServiceDefinition, opts: ServeOptions): Promise<ServedService> {
  const db = await createTestDatabase(def.schema && def.migrationsDir ? [{ schema: def.schema, migrationsDir: def.migrationsDir }] : []);
  const logger = createLogger(`${def.name}-test`, process.env.TEST_LOG_LEVEL ?? 'silent');
  const bus = opts.bus ?? new InMemoryEventBus(logger);
  let instance: ServiceInstance;
  try {
    instance = await def.create({ databaseUrl: db.url, bus, jwt: opts.jwt, logger, env: { NODE_ENV: 'test', ...opts.env } });
    if (opts.startBackgroundWork) await instance.start();
  } catch (err) {
    // A service that does not start leaves nothing behind for the next suite.
    await bus.close().catch(() => undefined);
    await db.drop();
    throw err;
  }
  const lifecycle = new Lifecycle(logger);
  lifecycle.addReadinessCheck(def.name, () => instance.ready());
  const server = http.createServer(serviceRootApp(instance, lifecycle));
  const base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  return {
    db,
    bus,
    instance,
    logger,
    pool,
    base,
    graphqlUrl: `${base}/graphql`,
    async close() {
      await closeServer(server);
      await instance.stop();
      await bus.close();
      // Before the drop: an idle connection cut by it would be an unhandled error.
      await pool.end();
      await db.drop();
    },
  };
}
