import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadStockConfig } from './config';
import { openStockDb } from './db';
import { consumeCatalogProducts } from './events/catalog-consumer';
import { resolvers, stockContext, type StockContext } from './graphql/resolvers';
import { loadStockTypeDefs } from './graphql/schema';
import { StockUseCases } from './use-cases';
import { STOCK_SCHEMA } from './use-cases/deps';

export { STOCK_SDL_PATH, loadStockTypeDefs } from './graphql/schema';
export { seedDemoStock, type DemoStock, type DemoStockOptions, type DemoStockProduct } from './seed';
export { StockUseCases } from './use-cases';
export { openStockDb, type StockDb } from './db';
export { POD_SENTINEL, stockFigure } from './domain/stock-figure';
export { feedPageSql, STOCK_FIGURE_SQL } from './repositories/stock-repository';

/** Absolute path of the stock SQL migrations (next to src/ and dist/, in the package root). */
export const STOCK_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The stock subgraph: warehouses, per-warehouse stock, holds for orders and the stock figure of
 * rule S1, on Postgres schema `stock`; a read model of the catalog's products fed by its events;
 * `stock-level.changed` through its outbox. Introspection is on except when NODE_ENV=production.
 */
export const stockService: ServiceDefinition = {
  name: 'stock',
  schema: STOCK_SCHEMA,
  migrationsDir: STOCK_MIGRATIONS_DIR,
  defaultPort: 4103,
  async create(deps) {
    const cfg = loadStockConfig(deps.env);
    const db = openStockDb(deps.databaseUrl, cfg.STOCK_DB_POOL_MAX, deps.logger);
    const stock = new StockUseCases({ pool: db.pool, prisma: db.prisma, podCountryCode: cfg.STOCK_POD_COUNTRY_CODE, logger: deps.logger });
    return createSubgraphService<StockContext>({
      name: 'stock',
      schema: STOCK_SCHEMA,
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadStockTypeDefs(),
      resolvers,
      extendContext: (base) => stockContext(base, stock),
      consumers: [consumeCatalogProducts(stock.deps, deps.logger)],
      onStop: () => db.close(),
      introspection: cfg.NODE_ENV !== 'production',
    });
  },
};
