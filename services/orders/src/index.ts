import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadOrdersTypeDefs } from './graphql/schema';

export { ORDERS_SDL_PATH, loadOrdersTypeDefs } from './graphql/schema';

/** Absolute path of the orders SQL migrations (next to src/ and dist/, in the package root). */
export const ORDERS_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The orders subgraph: orders, lines, fulfilments and tracking and their state machine, on
 * Postgres schema `orders`. Until its features arrive it declares no
 * types of its own; it already has its schema (with the platform's outbox and inbox tables), its
 * outbox relay and its health checks.
 */
export const ordersService: ServiceDefinition = {
  name: 'orders',
  schema: 'orders',
  migrationsDir: ORDERS_MIGRATIONS_DIR,
  defaultPort: 4104,
  async create(deps) {
    return createSubgraphService({
      name: 'orders',
      schema: 'orders',
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadOrdersTypeDefs(),
      resolvers: {},
    });
  },
};
