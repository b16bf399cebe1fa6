import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadStockTypeDefs } from './graphql/schema';

export { STOCK_SDL_PATH, loadStockTypeDefs } from './graphql/schema';

/** Absolute path of the stock SQL migrations (next to src/ and dist/, in the package root). */
export const STOCK_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The stock subgraph: warehouses, per-warehouse stock, holds for orders and the stock figure,
 * on Postgres schema `stock`. Until its features arrive it declares no
 * types of its own; it already has its schema (with the platform's outbox and inbox tables), its
 * outbox relay and its health checks.
 */
export const stockService: ServiceDefinition = {
  name: 'stock',
  schema: 'stock',
  migrationsDir: STOCK_MIGRATIONS_DIR,
  defaultPort: 4103,
  async create(deps) {
    return createSubgraphService({
      name: 'stock',
      schema: 'stock',
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadStockTypeDefs(),
      resolvers: {},
    });
  },
};
