import { commonConfigShape, env, loadConfig } from '@pf/platform/config';

/** Settings of the orders service itself, read from the environment (ServiceDeps.env). */
export const ordersConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  /** Connections of the pg pool the use cases run on. */
  ORDERS_DB_POOL_MAX: env.int(10, 1, 200),
  /** Connections of the Prisma pool (read models, lists, history). */
  ORDERS_PRISMA_POOL_MAX: env.int(4, 1, 100),
  /** How long a confirmed order stays queued (and amendable) before it goes to processing. */
  ORDER_COUNTDOWN_SECONDS: env.int(900, 0, 30 * 24 * 3600),
  /** How often the timer worker looks for due countdowns and schedules. */
  ORDERS_TIMER_POLL_MS: env.int(1000, 10, 600_000),
  /** How long a claimed timer stays claimed; after that another replica may take it over. */
  ORDERS_TIMER_LEASE_MS: env.int(60_000, 100, 3_600_000),
  /** Timers claimed per poll. */
  ORDERS_TIMER_BATCH: env.int(20, 1, 1000),
  /** Claimed timers fired at once, each its own order's change (they share ORDERS_DB_POOL_MAX with the API). */
  ORDERS_TIMER_CONCURRENCY: env.int(4, 1, 32),
  /** Failed attempts to send an order before it could not be sent (`holding`, confirmedAt kept); the stock service or the database out of reach is waited out instead. */
  ORDERS_TIMER_MAX_ATTEMPTS: env.int(8, 1, 1000),
  /** The stock subgraph, called directly for holds (with a service identity this service signs). */
  STOCK_URL: env.url('http://127.0.0.1:4103/graphql'),
  /** Time limit of one call to the stock subgraph (the server ends a change idle in its transaction for four of them, at least a minute). */
  STOCK_TIMEOUT_MS: env.int(10_000, 100, 120_000),
  /** How often the stock repair looks for changes that called the stock service and never finished. */
  ORDERS_STOCK_REPAIR_INTERVAL_MS: env.int(30_000, 100, 3_600_000),
  /** How old such a change must be before the stock repair takes it as never finishing (well above the longest change: at least four STOCK_TIMEOUT_MS, or a warning at start). Another change of its order does not wait for it: it fences the change out in stock and puts the order right at once. */
  ORDERS_STOCK_REPAIR_AFTER_MS: env.int(120_000, 100, 86_400_000),
  /** Key that signs the service identity for the stock calls (HS*: defaults to the verification secret; required with RS256/ES256). */
  JWT_SIGNING_KEY: env.optionalString(),
};

export type OrdersConfig = ReturnType<typeof loadOrdersConfig>;

export function loadOrdersConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(ordersConfigShape, source);
}
