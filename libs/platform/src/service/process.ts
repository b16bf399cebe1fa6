import http from 'node:http';
import type { EventBus } from '../bus/bus';
import { InMemoryEventBus } from '../bus/memory';
import { KafkaEventBus } from '../bus/kafka';
import { commonConfigShape, ConfigError, env, loadConfig } from '../config';
import { migrate, serviceMigrationSources } from '../db/migrate';
import { Lifecycle, listen } from '../http/lifecycle';
import { createLogger } from '../logging';
import { startProcessMetrics } from '../metrics';
import { serviceRootApp } from './root-app';
import { MigratedSchemaCheck, SchemaBehindError } from './schema-check';
import type { ServiceDefinition } from './service';

/** Config every service process reads, besides its own. */
export const processConfigShape = {
  ...commonConfigShape,
  /** HTTP port; 0 means the service's own default (accounts 4101 ... webhooks 4105, gateway 4000). */
  PORT: env.port(0),
  /** Address to listen on. */
  HOST: env.string('0.0.0.0'),
  /** PostgreSQL URL; the service touches only its own schema in it. Required for services with tables. */
  DATABASE_URL: env.optionalString(),
  /** `kafka` in production; `memory` only makes sense when every service shares one process. */
  EVENT_BUS: env.oneOf(['kafka', 'memory'] as const, 'kafka'),
  /** Comma-separated Kafka bootstrap brokers. */
  KAFKA_BROKERS: env.list(['127.0.0.1:9092']),
  /** Kafka client id; default: the service name. */
  KAFKA_CLIENT_ID: env.optionalString(),
  /** Prefix of every topic and consumer group name (separates deployments sharing a cluster). */
  KAFKA_TOPIC_PREFIX: env.string('pf.'),
};

export function busFromConfig(
  cfg: { EVENT_BUS: 'kafka' | 'memory'; KAFKA_BROKERS: string[]; KAFKA_CLIENT_ID?: string | undefined; KAFKA_TOPIC_PREFIX: string },
  clientId: string,
  logger: ReturnType<typeof createLogger>,
): EventBus {
  if (cfg.EVENT_BUS === 'memory') return new InMemoryEventBus(logger);
  return new KafkaEventBus({
    brokers: cfg.KAFKA_BROKERS,
    clientId: cfg.KAFKA_CLIENT_ID ?? clientId,
    topicPrefix: cfg.KAFKA_TOPIC_PREFIX,
    logger,
  });
}

/**
 * Production entry point of one service: validated config, Kafka bus, HTTP server with health
 * routes, graceful shutdown on SIGTERM/SIGINT (stop taking requests, finish in-flight ones, stop
 * consumers and relay, flush the producer, close pools).
 */
export async function runServiceProcess(def: ServiceDefinition): Promise<void> {
  const logger = createLogger(def.name);
  let cfg;
  try {
    cfg = loadConfig(processConfigShape);
    if (def.schema && !cfg.DATABASE_URL) throw new Error('Invalid configuration:\n  DATABASE_URL: required');
  } catch (err) {
    logger.fatal({ err }, (err as Error).message);
    process.exit(78); // EX_CONFIG
  }
  const lifecycle = new Lifecycle(logger, cfg.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();

  const bus = busFromConfig(cfg, def.name, logger);
  lifecycle.onShutdown('event bus', () => bus.close());

  let instance;
  try {
    instance = await def.create({
      databaseUrl: cfg.DATABASE_URL ?? '',
      bus,
      jwt: {
        algorithm: cfg.JWT_ALGORITHM,
        key: cfg.JWT_VERIFY_KEY,
        ...(cfg.JWT_VERIFY_KEY_PREVIOUS ? { previousKeys: [cfg.JWT_VERIFY_KEY_PREVIOUS] } : {}),
        issuer: cfg.JWT_ISSUER,
        audience: cfg.JWT_AUDIENCE,
      },
      logger,
      env: process.env,
    });
  } catch (err) {
    // The service's own variables are read by `create`: a bad one is a configuration error too
    // (one log line naming it, exit 78), not a crash with a stack trace.
    if (!(err instanceof ConfigError)) throw err;
    logger.fatal({ variables: err.variables }, err.message);
    process.exit(78); // EX_CONFIG
  }
  // After the service's own settings were read, so that a bad one is reported first.
  if (def.schema && def.migrationsDir) {
    const schemaCheck = new MigratedSchemaCheck({
      connectionString: cfg.DATABASE_URL ?? '',
      schema: def.schema,
      sources: serviceMigrationSources(def.migrationsDir),
    });
    try {
      await schemaCheck.verify();
    } catch (err) {
      if (err instanceof SchemaBehindError) {
        // Exits rather than waits: the orchestrator restarts it (with back-off) once the Job is through.
        logger.fatal({ schema: err.schema, pendingMigrations: err.pending }, err.message);
        process.exit(75); // EX_TEMPFAIL
      }
      if ((err as NodeJS.ErrnoException).syscall === 'scandir') {
        // The release's own migrations folder cannot be read: the image is broken, not the database.
        logger.fatal({ err }, `the migrations of this release cannot be read (${(err as Error).message}); the image is incomplete`);
        process.exit(78); // EX_CONFIG
      }
      // The database down at start is an outage like any other: serve, and let readiness wait for it.
      logger.warn({ err }, 'could not check at start that the database schema has every migration; /readyz checks it until it does');
    }
    lifecycle.addReadinessCheck('schema', () => schemaCheck.verify());
  }
  lifecycle.onShutdown(`${def.name} background work`, () => instance.stop());
  lifecycle.addReadinessCheck(def.name, () => instance.ready());

  startProcessMetrics(def.name);
  const server = http.createServer(instance.serverOptions ?? {}, serviceRootApp(instance, lifecycle));
  server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
  instance.configureServer?.(server);
  lifecycle.registerHttpServer('http server', server);

  await instance.start();
  const port = await listen(server, cfg.PORT || def.defaultPort, cfg.HOST);
  logger.info({ port }, `${def.name} listening`);
}

/** Migration entry point of one service (a Kubernetes Job or init step). Safe to run twice. */
export async function runMigrationProcess(def: ServiceDefinition): Promise<void> {
  const logger = createLogger(`${def.name}-migrate`);
  if (!def.schema || !def.migrationsDir) {
    logger.info('nothing to migrate');
    return;
  }
  const cfg = loadConfig({ DATABASE_URL: env.string() });
  const result = await migrate({
    connectionString: cfg.DATABASE_URL,
    schema: def.schema,
    sources: serviceMigrationSources(def.migrationsDir),
    logger,
  });
  logger.info({ applied: result.applied.length, skipped: result.skipped.length }, 'migrations done');
}
