import path from 'node:path';
import { serviceSigningKey } from '@pf/platform/config';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { StockClient, type StockApi } from './adapters/stock-client';
import { loadOrdersConfig } from './config';
import { createJournalPool, createPool, createPrismaClient, ORDERS_SCHEMA, STOCK_CALLS_PER_CHANGE } from './db';
import { consumeReadModels } from './events/read-model-consumer';
import { consumeStockFigures } from './events/stock-figures-consumer';
import { ordersContext, resolvers, type OrdersContext } from './graphql/resolvers';
import { loadOrdersTypeDefs } from './graphql/schema';
import { StockRepairWorker } from './timers/stock-repair-worker';
import { TimerWorker } from './timers/timer-worker';
import { OrdersUseCases } from './use-cases';

export { ORDERS_SDL_PATH, loadOrdersTypeDefs } from './graphql/schema';
export { OrdersUseCases } from './use-cases';
export { createJournalPool, createPrismaClient, createPool, ORDERS_SCHEMA } from './db';
export { StockClient, type StockApi } from './adapters/stock-client';

/** Absolute path of the orders SQL migrations (next to src/ and dist/, in the package root). */
export const ORDERS_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The orders subgraph: orders, lines, fulfilments and tracking, the state machine of section 3,
 * replay (O2), amendment (O5) and visibility (O1), on Postgres schema `orders`; read models of
 * teams, channels, products, shipping methods and stock figures (which derive fulfillableStatus)
 * fed by events; stock holds through the stock
 * service; durable countdown and schedule timers; events through its outbox. Settings: config.ts.
 */
export const ordersService: ServiceDefinition = {
  name: 'orders',
  schema: ORDERS_SCHEMA,
  migrationsDir: ORDERS_MIGRATIONS_DIR,
  defaultPort: 4104,
  async create(deps) {
    const cfg = loadOrdersConfig(deps.env);
    if (cfg.ORDERS_STOCK_REPAIR_AFTER_MS < STOCK_CALLS_PER_CHANGE * cfg.STOCK_TIMEOUT_MS) {
      // A change's journal row dates from its first stock call, and a change may make several. The
      // repair would fence out (and fail) a change still running; an order being created has no
      // row the repair could find locked.
      deps.logger.warn(
        { ORDERS_STOCK_REPAIR_AFTER_MS: cfg.ORDERS_STOCK_REPAIR_AFTER_MS, STOCK_TIMEOUT_MS: cfg.STOCK_TIMEOUT_MS },
        'ORDERS_STOCK_REPAIR_AFTER_MS is below four stock call time-outs: the stock repair may take a change still running for one that never finished',
      );
    }
    const signingKey = serviceSigningKey(cfg.JWT_SIGNING_KEY, deps.jwt, 'signs the service JWT for the stock subgraph');
    const prisma = createPrismaClient(deps.databaseUrl, cfg.ORDERS_PRISMA_POOL_MAX);
    const pool = createPool(deps.databaseUrl, cfg.ORDERS_DB_POOL_MAX, deps.logger, cfg.STOCK_TIMEOUT_MS);
    const stock = new StockClient({
      url: cfg.STOCK_URL,
      timeoutMs: cfg.STOCK_TIMEOUT_MS,
      // Holds are asked inside an order transaction: no more calls are in flight than connections.
      connections: cfg.ORDERS_DB_POOL_MAX,
      jwt: { ...deps.jwt, key: signingKey, expiresInSeconds: 300 },
    });
    // The stock-step journal's own connections (see OrdersDeps.journalPool and createJournalPool).
    const journalPool = createJournalPool(deps.databaseUrl, deps.logger);
    const orders = new OrdersUseCases({
      pool,
      journalPool,
      prisma,
      stock,
      countdownSeconds: cfg.ORDER_COUNTDOWN_SECONDS,
      logger: deps.logger,
    });
    const timers = new TimerWorker(orders.deps, {
      pollMs: cfg.ORDERS_TIMER_POLL_MS,
      leaseMs: cfg.ORDERS_TIMER_LEASE_MS,
      batch: cfg.ORDERS_TIMER_BATCH,
      concurrency: cfg.ORDERS_TIMER_CONCURRENCY,
      maxAttempts: cfg.ORDERS_TIMER_MAX_ATTEMPTS,
      logger: deps.logger.child({ component: 'order-timers' }),
    });
    const stockRepair = new StockRepairWorker(orders.deps, {
      intervalMs: cfg.ORDERS_STOCK_REPAIR_INTERVAL_MS,
      afterMs: cfg.ORDERS_STOCK_REPAIR_AFTER_MS,
      logger: deps.logger.child({ component: 'stock-repair' }),
    });
    return createSubgraphService<OrdersContext>({
      name: 'orders',
      schema: ORDERS_SCHEMA,
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadOrdersTypeDefs(),
      resolvers,
      extendContext: (base) => ordersContext(base, orders),
      consumers: [consumeReadModels(orders.deps, deps.logger), consumeStockFigures(orders.deps, deps.logger)],
      workers: [timers, stockRepair],
      onStop: async () => {
        await prisma.$disconnect();
        await pool.end();
        await journalPool.end();
        await stock.close();
      },
      introspection: cfg.NODE_ENV !== 'production',
    });
  },
};
