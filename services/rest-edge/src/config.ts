import express from 'express';
import { z } from 'zod';
import { commonConfigShape, env, loadConfig } from '@pf/platform/config';

/**
 * `TRUSTED_PROXIES`: comma-separated IPs or CIDRs (or proxy-addr's names `loopback`,
 * `linklocal`, `uniquelocal`) whose `X-Forwarded-For` is believed. Checked with the very parser
 * express uses for `trust proxy`, so what passes here is what the app will trust.
 */
const trustedProxies = env.list([]).superRefine((list, ctx) => {
  try {
    express().set('trust proxy', list);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

/** Every setting of the REST edge; the keys are the environment variable names. */
export const restEdgeConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  LOG_LEVEL: commonConfigShape.LOG_LEVEL,
  SHUTDOWN_TIMEOUT_MS: commonConfigShape.SHUTDOWN_TIMEOUT_MS,
  /** HTTP port (0: any free port, as the tests use). */
  PORT: env.port(8080),
  HOST: env.string('0.0.0.0'),

  /** The gateway's GraphQL endpoint: every operation of the API goes there. */
  GATEWAY_URL: env.url('http://127.0.0.1:4000/graphql'),
  /** The accounts subgraph's GraphQL endpoint, called directly for `channelTokenCheck` (inaccessible in the supergraph). */
  ACCOUNTS_URL: env.url('http://127.0.0.1:4101/graphql'),
  /**
   * The stock subgraph's GraphQL endpoint. When set, `GET /stock-levels` reads its pages straight
   * from it (ARCHITECTURE principle 1 allows a direct subgraph call; it saves the gateway's
   * planning, parsing and re-serialising of every 5000-item page); unset, the pages go through
   * the gateway like every other read.
   */
  STOCK_URL: env.url().optional(),
  /**
   * The orders subgraph's GraphQL endpoint. When set, the order endpoints (`/orders...`) send
   * their operations straight to it (ARCHITECTURE principle 1 allows a direct subgraph call: each
   * selects only fields the orders subgraph owns, so the gateway would only plan, forward and
   * re-serialise them, about an eighth of an order's CPU); unset, they go through the gateway.
   */
  ORDERS_URL: env.url().optional(),
  /** Products per page the edge reads from the stock feed while streaming `GET /stock-levels` (the feed allows 5000). */
  STOCK_LEVELS_PAGE_SIZE: env.int(5000, 1, 5000),
  /**
   * How long after its `updatedAt` an order's change may still be committing (its stock calls, its
   * lock waits): `GET /orders`'s `next_cursor` never passes an order changed more recently, so a
   * change stamped earlier and committed later is not left behind the cursor.
   */
  ORDERS_CURSOR_SETTLE_SECONDS: env.int(60, 0, 3600),
  /**
   * The origin (and any path prefix) clients reach the API at, e.g. `https://api.example.com`:
   * the absolute URLs of pagination links start with it. Unset: the request's own scheme and
   * `Host` (`X-Forwarded-Proto`/`X-Forwarded-Host` believed only from TRUSTED_PROXIES).
   */
  PUBLIC_BASE_URL: env.url().optional(),
  /** Keep-alive connections per upstream (gateway, accounts, stock, orders). */
  UPSTREAM_CONNECTIONS: env.int(64, 1, 1024),
  /** Time limit of one upstream call (headers and body). */
  UPSTREAM_TIMEOUT_MS: env.int(10_000, 100, 120_000),
  /** How long a client may take to send a request's headers before it is answered 408 (a connection trickling them in holds a socket; Node's own limit is 60 s). */
  REQUEST_HEADERS_TIMEOUT_MS: env.int(20_000, 500, 300_000),
  /** How long a client may take to send a whole request, body included, before it is answered 408 (Node's own limit is 300 s; 4 MiB at 1 Mbit/s takes about 35 s). */
  REQUEST_TIMEOUT_MS: env.int(60_000, 1_000, 600_000),

  /** Key that signs the identity JWTs the edge mints (HS*: the shared secret; RS256/ES256: the PEM private key). */
  JWT_SIGNING_KEY: env.string(),
  JWT_ALGORITHM: commonConfigShape.JWT_ALGORITHM,
  JWT_ISSUER: commonConfigShape.JWT_ISSUER,
  JWT_AUDIENCE: commonConfigShape.JWT_AUDIENCE,
  /** Lifetime of the channel JWTs sent upstream (one per team and channel, reused for half of it). */
  CHANNEL_JWT_TTL_SECONDS: env.int(60, 5, 3600),

  /** `redis` (production: shared by every replica) or `memory` (embedded wiring, one process only). */
  RATE_LIMIT_STORE: env.oneOf(['redis', 'memory'] as const, 'redis'),
  /** Redis holding the rate-limit counters shared by every edge replica. */
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key the edge writes (separates deployments and test suites). */
  REDIS_KEY_PREFIX: env.string('pf:edge:'),
  /** Authenticated requests per token per window (spec section 8: 600 per minute). */
  RATE_LIMIT_PER_TOKEN: env.int(600, 1),
  /** Failed-authentication (401) requests per client address per window (spec section 8: 60 per minute); the one that exceeds it, and every request after, get 429 until the window ends. */
  RATE_LIMIT_FAILED_AUTH_PER_IP: env.int(60, 1),
  /** Length of the fixed rate-limit windows. */
  RATE_LIMIT_WINDOW_SECONDS: env.int(60, 1, 3600),
  /** Comma-separated IPs or CIDRs (or `loopback`, `linklocal`, `uniquelocal`) of proxies whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: trustedProxies,

  /**
   * How long a successful credentials lookup is reused; accounts events drop entries as they arrive (a revocation takes effect on an edge once its event got there: the outbox relay and Kafka, typically well under a second; at most this long if the bus is down). 0 disables the cache (`npm start` runs with 0).
   */
  AUTH_CACHE_TTL_MS: env.int(30_000, 0, 3_600_000),
  /** Most cached credentials lookups; past it the oldest entries are dropped first. */
  AUTH_CACHE_MAX_ENTRIES: env.int(10_000, 1, 10_000_000),

  /** The event bus the edge consumes accounts events from (cache invalidation). */
  EVENT_BUS: env.oneOf(['kafka', 'memory'] as const, 'kafka'),
  KAFKA_BROKERS: env.list(['127.0.0.1:9092']),
  KAFKA_CLIENT_ID: env.optionalString(),
  KAFKA_TOPIC_PREFIX: env.string('pf.'),
};

export type RestEdgeConfig = z.infer<z.ZodObject<typeof restEdgeConfigShape>>;

/** Reads and validates the edge's configuration; a `ConfigError` names every bad variable. */
export function loadRestEdgeConfig(source: NodeJS.ProcessEnv = process.env): RestEdgeConfig {
  return loadConfig(restEdgeConfigShape, source);
}
