import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadCatalogConfig } from './config';
import { createPrismaClient } from './db';
import { resolvers, type CatalogContext } from './graphql/resolvers';
import { loadCatalogTypeDefs } from './graphql/schema';
import { CatalogUseCases } from './use-cases';
import { CATALOG_SCHEMA } from './use-cases/deps';

export { CATALOG_SDL_PATH, loadCatalogTypeDefs } from './graphql/schema';
export { seedDemoCatalog, type DemoCatalog, type DemoCatalogOptions, type DemoProduct } from './seed';
export { CatalogUseCases } from './use-cases';
export { createPrismaClient } from './db';

/** Absolute path of the catalog SQL migrations (next to src/ and dist/, in the package root). */
export const CATALOG_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The catalog subgraph: products (uuid, SKU, active state, print-on-demand flags, dimensions),
 * shipping methods and SKU validation, on Postgres schema `catalog`, events through its outbox.
 * Introspection is on except when NODE_ENV=production.
 */
export const catalogService: ServiceDefinition = {
  name: 'catalog',
  schema: CATALOG_SCHEMA,
  migrationsDir: CATALOG_MIGRATIONS_DIR,
  defaultPort: 4102,
  async create(deps) {
    const cfg = loadCatalogConfig(deps.env);
    const prisma = createPrismaClient(deps.databaseUrl, cfg.CATALOG_DB_POOL_MAX);
    const catalog = new CatalogUseCases({ prisma });
    return createSubgraphService<CatalogContext>({
      name: 'catalog',
      schema: CATALOG_SCHEMA,
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadCatalogTypeDefs(),
      resolvers,
      extendContext: (base) => ({ ...base, catalog }),
      onStop: () => prisma.$disconnect(),
      introspection: cfg.NODE_ENV !== 'production',
    });
  },
};
