import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadCatalogTypeDefs } from './graphql/schema';

export { CATALOG_SDL_PATH, loadCatalogTypeDefs } from './graphql/schema';

/** Absolute path of the catalog SQL migrations (next to src/ and dist/, in the package root). */
export const CATALOG_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The catalog subgraph: products (uuid, SKU, active state, print-on-demand flags, dimensions),
 * shipping methods and SKU validation, on Postgres schema `catalog`. Until its features arrive it declares no
 * types of its own; it already has its schema (with the platform's outbox and inbox tables), its
 * outbox relay and its health checks.
 */
export const catalogService: ServiceDefinition = {
  name: 'catalog',
  schema: 'catalog',
  migrationsDir: CATALOG_MIGRATIONS_DIR,
  defaultPort: 4102,
  async create(deps) {
    return createSubgraphService({
      name: 'catalog',
      schema: 'catalog',
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadCatalogTypeDefs(),
      resolvers: {},
    });
  },
};
