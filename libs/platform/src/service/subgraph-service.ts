import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { DocumentNode } from 'graphql';
import type pg from 'pg';
import type { EventBus, Subscription } from '../bus/bus';
import { persistentSubscription } from '../bus/persistent-subscription';
import { openPool } from '../db/pool';
import { createSubgraph, type SubgraphContext } from '../graphql/subgraph';
import type { JwtVerifyOptions } from '../identity';
import type { Logger } from '../logging';
import { OutboxRelay } from '../outbox/relay';
import type { ServiceInstance } from './service';

export interface SubgraphServiceOptions<C extends SubgraphContext> {
  name: string;
  schema: string;
  databaseUrl: string;
  bus: EventBus;
  jwt: JwtVerifyOptions;
  logger: Logger;
  typeDefs: DocumentNode;
  resolvers: GraphQLResolverMap<C>;
  extendContext?: (base: SubgraphContext) => C | Promise<C>;
  /** Consumers to start with the service (each subscribes and returns its subscription). */
  consumers?: ((bus: EventBus) => Promise<Subscription>)[];
  /** Other background work (timers, pollers) started and stopped with the service. */
  workers?: { start(): Promise<void>; stop(): Promise<void> }[];
  /** Closed last, e.g. the service's Prisma client. */
  onStop?: () => Promise<void>;
  introspection?: boolean;
  relay?: { batchSize?: number; pollIntervalMs?: number; lingerMs?: number };
}

/**
 * The common shape of a subgraph service: a pg pool for the outbox relay and health checks, the
 * Apollo subgraph on `/graphql`, the relay, consumers and workers started and stopped in order.
 */
export async function createSubgraphService<C extends SubgraphContext>(
  opts: SubgraphServiceOptions<C>,
): Promise<ServiceInstance & { pool: pg.Pool; relay: OutboxRelay }> {
  const pool = openPool({ connectionString: opts.databaseUrl, max: 4 }, opts.logger, 'service');
  const relay = new OutboxRelay({ pool, schema: opts.schema, bus: opts.bus, logger: opts.logger, ...opts.relay });
  const { app, server } = await createSubgraph({
    name: opts.name,
    typeDefs: opts.typeDefs,
    resolvers: opts.resolvers,
    jwt: opts.jwt,
    logger: opts.logger,
    ...(opts.extendContext ? { extendContext: opts.extendContext } : {}),
    ...(opts.introspection !== undefined ? { introspection: opts.introspection } : {}),
  });
  const subscriptions: Subscription[] = [];
  // Ready once the database has answered; after that a database outage keeps the pods in service,
  // each request answering it (`unavailable`), as the edge does with its upstreams: taking every
  // replica out of its Service would turn the outage into connection failures at the callers, and
  // readiness would then lag the database's return by the probes' period.
  let databaseAnswered = false;
  return {
    app,
    pool,
    relay,
    async start() {
      await relay.start();
      // Consumers that cannot join yet (the broker is down) keep trying in the background: the
      // service serves and its timers run meanwhile; its read models catch up once they join.
      const consumers = (opts.consumers ?? []).map((consume, i) =>
        persistentSubscription(() => consume(opts.bus), { name: `${opts.name} consumer ${i + 1}`, logger: opts.logger }),
      );
      subscriptions.push(...consumers);
      await Promise.all(consumers.map((c) => c.firstAttempt));
      for (const w of opts.workers ?? []) await w.start();
    },
    async stop() {
      for (const w of [...(opts.workers ?? [])].reverse()) await w.stop();
      // Side by side: each may wait (up to its limit) for a broker that is down.
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
      await relay.stop();
      await server.stop();
      await opts.onStop?.();
      await pool.end();
    },
    async ready() {
      if (databaseAnswered) return;
      await pool.query('SELECT 1');
      databaseAnswered = true;
    },
  };
}
