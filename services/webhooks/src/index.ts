import path from 'node:path';
import { serviceSigningKey } from '@pf/platform/config';
import type { ServiceDefinition, ServiceDeps, ServiceInstance } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadWebhooksConfig, type WebhooksConfig } from './config';
import { maxAttempts } from './domain/delivery-rules';
import { SecretBox } from './domain/secrets';
import type { HostResolver } from './domain/url-policy';
import { WebhookSender } from './delivery/https-sender';
import { SystemResolver } from './delivery/system-resolver';
import { DeliveryWorker } from './delivery/worker';
import { webhooksConsumers } from './events/consumers';
import { resolvers, type WebhooksContext } from './graphql/resolvers';
import { loadWebhooksTypeDefs } from './graphql/schema';
import { createPrismaClient, createQueuePool, WEBHOOKS_SCHEMA } from './repositories/db';
import { OrdersSubgraphOrders, OrdersWithFallback, ReadModelOrders, type CurrentOrders } from './orders/current-orders';
import { StockSubgraphFigures, type StockFigures } from './stock/stock-figures';
import { WebhooksUseCases, type WebhooksDeps } from './use-cases';
import { EndpointCache } from './use-cases/endpoint-cache';
import { StockWindowWorker } from './use-cases/stock-windows';

export { WEBHOOKS_SDL_PATH, loadWebhooksTypeDefs } from './graphql/schema';
export { loadWebhooksConfig, type WebhooksConfig } from './config';
export { WEBHOOK_API_VERSION, WebhookSender } from './delivery/https-sender';
export { DeliveryWorker } from './delivery/worker';
export { SystemResolver } from './delivery/system-resolver';
export { checkWebhookUrl, type HostResolver, type ResolvedAddress } from './domain/url-policy';
export { serialiseBody, signBody } from './domain/notifications';
export type { StockFigures, StockFigure } from './stock/stock-figures';
export type { CurrentOrders, CurrentOrder } from './orders/current-orders';

/** Absolute path of the webhooks SQL migrations (next to src/ and dist/, in the package root). */
export const WEBHOOKS_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/** What tests (and only tests) may put in place of the outside world. */
export interface WebhooksOverrides {
  /** DNS: tests answer from a table, and change the answers between attempts. */
  resolver?: HostResolver;
  /** Where current stock figures come from (default: the stock subgraph at STOCK_URL). */
  stockFigures?: StockFigures;
  /**
   * Where a resend reads the order (default: the orders subgraph at ORDERS_URL, falling back to
   * the read model given here when it cannot answer).
   */
  currentOrders?: (readModel: CurrentOrders) => CurrentOrders;
}

/** A running webhooks service with its parts, for tests. */
export interface WebhooksInstance extends ServiceInstance {
  useCases: WebhooksUseCases;
  deps: WebhooksDeps;
  worker: DeliveryWorker;
  stockWindows: StockWindowWorker;
  config: WebhooksConfig;
}

/**
 * The webhooks subgraph: each channel's webhook URL and sealed signing secret, the durable
 * delivery queue worked by the delivery worker, the stock batching windows, and the read models
 * (teams, channels, orders) fed by events, on Postgres schema `webhooks`.
 */
export async function createWebhooksService(deps: ServiceDeps, overrides: WebhooksOverrides = {}): Promise<WebhooksInstance> {
  const config = loadWebhooksConfig(deps.env, deps.jwt.key);
  const signingKey = serviceSigningKey(config.JWT_SIGNING_KEY, deps.jwt, 'signs the service JWT for the stock and orders subgraphs');
  const logger = deps.logger;
  const prisma = createPrismaClient(deps.databaseUrl, config.WEBHOOKS_DB_POOL_MAX);
  const pool = createQueuePool(deps.databaseUrl, config.WEBHOOKS_QUEUE_POOL_MAX, deps.logger);
  const resolver = overrides.resolver ?? new SystemResolver({ limitMs: config.WEBHOOK_DNS_TIMEOUT_MS });
  const policy = { allowedRanges: config.allowedRanges };
  if (config.allowedRanges.length > 0 || config.extraCa) {
    logger.warn({ ranges: config.WEBHOOK_ALLOW_PRIVATE_RANGES, extraCa: Boolean(config.extraCa) }, 'webhook delivery allows extra address ranges or an extra CA (tests and local development only)');
  }
  const secrets = new SecretBox(config.secretKey, config.previousSecretKeys);
  const serviceJwt = { algorithm: deps.jwt.algorithm, key: signingKey, issuer: deps.jwt.issuer, audience: deps.jwt.audience, expiresInSeconds: 60 };
  const readModel = new ReadModelOrders(pool);
  const orders = overrides.currentOrders
    ? overrides.currentOrders(readModel)
    : new OrdersWithFallback(new OrdersSubgraphOrders({ url: config.ORDERS_URL, jwt: serviceJwt, timeoutMs: config.WEBHOOK_TIMEOUT_MS }), readModel, logger);
  const useCaseDeps: WebhooksDeps = {
    pool,
    prisma,
    secrets,
    endpoints: new EndpointCache(pool, secrets),
    orders,
    onQueued: () => worker.nudge(),
    resolver,
    policy,
    retryDelays: config.WEBHOOK_RETRY_DELAYS_SECONDS,
    stockWindowSeconds: config.WEBHOOK_STOCK_WINDOW_SECONDS,
    logger,
  };
  const useCases = new WebhooksUseCases(useCaseDeps);
  const sender = new WebhookSender({
    resolver,
    policy,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    extraCa: config.extraCa,
    // The worker bounds what is in flight; requests never wait in the agent for a socket.
    maxSockets: config.WEBHOOK_DELIVERY_CONCURRENCY,
  });
  const worker = new DeliveryWorker({
    pool,
    sender,
    retryDelays: config.WEBHOOK_RETRY_DELAYS_SECONDS,
    concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
    perChannelConcurrency: config.WEBHOOK_CHANNEL_CONCURRENCY,
    slowAttemptMs: config.WEBHOOK_SLOW_ATTEMPT_MS,
    claimBatch: config.WEBHOOK_CLAIM_BATCH,
    leaseSeconds: config.leaseSeconds,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    retentionDays: config.WEBHOOK_RETENTION_DAYS,
    logger: logger.child({ component: 'webhook-delivery' }),
  });
  const figures =
    overrides.stockFigures ??
    new StockSubgraphFigures({
      url: config.STOCK_URL,
      jwt: serviceJwt,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    });
  const stockWindows = new StockWindowWorker({
    deps: useCaseDeps,
    figures,
    leaseSeconds: config.leaseSeconds,
    windowSeconds: config.WEBHOOK_STOCK_WINDOW_SECONDS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    logger: logger.child({ component: 'stock-windows' }),
  });
  const service = await createSubgraphService<WebhooksContext>({
    name: 'webhooks',
    schema: WEBHOOKS_SCHEMA,
    databaseUrl: deps.databaseUrl,
    bus: deps.bus,
    jwt: deps.jwt,
    logger,
    typeDefs: loadWebhooksTypeDefs(),
    resolvers,
    extendContext: (base) => ({ ...base, webhooks: useCases, maxAttempts: maxAttempts(config.WEBHOOK_RETRY_DELAYS_SECONDS) }),
    consumers: webhooksConsumers(useCaseDeps, logger),
    workers: [worker, stockWindows],
    onStop: async () => {
      sender.close();
      await prisma.$disconnect();
      await pool.end();
    },
    introspection: config.NODE_ENV !== 'production',
  });
  return { ...service, useCases, deps: useCaseDeps, worker, stockWindows, config };
}

export const webhooksService: ServiceDefinition = {
  name: 'webhooks',
  schema: WEBHOOKS_SCHEMA,
  migrationsDir: WEBHOOKS_MIGRATIONS_DIR,
  defaultPort: 4105,
  create: (deps) => createWebhooksService(deps),
};
