import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { commonConfigShape, ConfigError, env, loadConfig } from '@pf/platform/config';
import { DNS_LIMIT_MS } from './delivery/system-resolver';
import { DEFAULT_RETRY_DELAYS_SECONDS } from './domain/delivery-rules';
import { parseAddressRanges, type AddressRange } from './domain/url-policy';
import type { SecretKey } from './domain/secrets';

/** A duration in seconds; fractions allowed so tests can run the schedule in milliseconds. */
const seconds = (def: number) => z.coerce.number().min(0).max(10 * 24 * 3600).default(def);

const delays = z
  .string()
  .default(DEFAULT_RETRY_DELAYS_SECONDS.join(','))
  .transform((v, ctx) => {
    const list = v.split(',').map((s) => Number(s.trim()));
    if (list.length === 0 || list.some((n) => !Number.isFinite(n) || n < 0 || n > 10 * 24 * 3600)) {
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of waits in seconds, e.g. 10,100,1000,10000' });
      return z.NEVER;
    }
    return list;
  });

/** Settings of the webhooks service; the keys are the environment variable names. */
export const webhooksConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  /** Connections of the Prisma pool (registration, back-office reads). */
  WEBHOOKS_DB_POOL_MAX: env.int(5, 1, 200),
  /** Connections of the pg pool of the queue, the consumers and the stock windows. */
  WEBHOOKS_QUEUE_POOL_MAX: env.int(8, 2, 200),

  /**
   * Key that seals signing secrets at rest: 32 bytes, base64. Required in production; elsewhere it
   * defaults to a key derived from the JWT key, so a development installation needs nothing.
   */
  WEBHOOK_SECRET_KEY: env.optionalString(),
  /** Id stored with every sealed secret; change it together with the key when rotating keys. */
  WEBHOOK_SECRET_KEY_ID: env.string('k1'),
  /** Earlier keys that still open older rows, as `id:base64key` pairs separated by commas. */
  WEBHOOK_SECRET_PREVIOUS_KEYS: env.list([]),

  /** Waits between attempts in seconds; attempts in all = waits + 1 (spec: 10,100,1000,10000). */
  WEBHOOK_RETRY_DELAYS_SECONDS: delays,
  /** Limit of one attempt (connection, TLS, request and answer). */
  WEBHOOK_TIMEOUT_MS: env.int(10_000, 100, 120_000),
  /** Attempts in flight at once per replica. */
  WEBHOOK_DELIVERY_CONCURRENCY: env.int(64, 1, 4096),
  /**
   * Attempts in flight at once to one slow channel, per replica: a receiver that answers slowly
   * (or not at all) holds at most this many, so it cannot starve the other channels.
   */
  WEBHOOK_CHANNEL_CONCURRENCY: env.int(16, 1, 4096),
  /** A channel is slow while an attempt of it runs, or from an attempt that ran, longer than this. */
  WEBHOOK_SLOW_ATTEMPT_MS: env.int(1_000, 1, 120_000),
  /** Deliveries claimed per round trip. */
  WEBHOOK_CLAIM_BATCH: env.int(100, 1, 1000),
  /** Fallback poll of the queue when no NOTIFY arrives. */
  WEBHOOK_POLL_INTERVAL_MS: env.int(1_000, 10, 60_000),
  /**
   * How long a claimed delivery stays leased; it must outlast an attempt (more than
   * WEBHOOK_TIMEOUT_MS + WEBHOOK_DNS_TIMEOUT_MS, checked at start). Default: timeout x 2 + 30 s.
   */
  WEBHOOK_LEASE_SECONDS: z.coerce.number().min(1).max(3600).optional(),
  /** The longest the DNS check before an attempt may take, every server and retry included. */
  WEBHOOK_DNS_TIMEOUT_MS: env.int(DNS_LIMIT_MS, 100, 60_000),

  /** Finished deliveries (and their attempts) stay in the delivery log this many days. */
  WEBHOOK_RETENTION_DAYS: env.int(30, 1, 3650),

  /** Length of a stock batching window (spec: ten minutes). */
  WEBHOOK_STOCK_WINDOW_SECONDS: seconds(600),
  /** The stock subgraph, called directly with a service JWT for the figures at sending time. */
  STOCK_URL: env.url('http://127.0.0.1:4103/graphql'),
  /** The orders subgraph, called directly with a service JWT: a resend describes the order as it is now. */
  ORDERS_URL: env.url('http://127.0.0.1:4104/graphql'),
  /** Key that signs the service JWT for the stock and orders calls (HS*: defaults to the verification secret). */
  JWT_SIGNING_KEY: env.optionalString(),

  /**
   * Tests and local development only: address ranges (CIDRs) that count as public, so a receiver
   * on 127.0.0.1 can be reached. Refused at start when NODE_ENV=production.
   */
  WEBHOOK_ALLOW_PRIVATE_RANGES: env.list([]),
  /** Tests and local development only: a PEM file of an extra CA to trust. Refused in production. */
  WEBHOOK_EXTRA_CA: env.optionalString(),
};

export type WebhooksEnvConfig = z.infer<z.ZodObject<typeof webhooksConfigShape>>;

/** The validated configuration with its derived values. */
export interface WebhooksConfig extends WebhooksEnvConfig {
  allowedRanges: AddressRange[];
  extraCa: string | undefined;
  secretKey: SecretKey;
  previousSecretKeys: SecretKey[];
  leaseSeconds: number;
}

/**
 * Reads and validates the webhooks configuration. `jwtKey` (the verification key the runner
 * passes) seeds the development default of the secret key.
 * @throws ConfigError naming every bad variable
 */
export function loadWebhooksConfig(source: NodeJS.ProcessEnv, jwtKey: string): WebhooksConfig {
  const cfg = loadConfig(webhooksConfigShape, source);
  const production = cfg.NODE_ENV === 'production';
  const errors: [string, string][] = [];

  let allowedRanges: AddressRange[] = [];
  try {
    allowedRanges = parseAddressRanges(cfg.WEBHOOK_ALLOW_PRIVATE_RANGES);
  } catch (err) {
    errors.push(['WEBHOOK_ALLOW_PRIVATE_RANGES', (err as Error).message]);
  }
  if (production && cfg.WEBHOOK_ALLOW_PRIVATE_RANGES.length > 0) {
    errors.push(['WEBHOOK_ALLOW_PRIVATE_RANGES', 'is for tests and local development only and is refused when NODE_ENV=production']);
  }
  let extraCa: string | undefined;
  if (cfg.WEBHOOK_EXTRA_CA) {
    if (production) errors.push(['WEBHOOK_EXTRA_CA', 'is for tests and local development only and is refused when NODE_ENV=production']);
    try {
      extraCa = readFileSync(cfg.WEBHOOK_EXTRA_CA, 'utf8');
      if (!extraCa.includes('-----BEGIN CERTIFICATE-----')) errors.push(['WEBHOOK_EXTRA_CA', 'is not a PEM certificate file']);
    } catch (err) {
      errors.push(['WEBHOOK_EXTRA_CA', `cannot be read (${(err as Error).message})`]);
    }
  }

  let secretKey: SecretKey | undefined;
  if (cfg.WEBHOOK_SECRET_KEY) {
    const key = Buffer.from(cfg.WEBHOOK_SECRET_KEY, 'base64');
    if (key.length !== 32) errors.push(['WEBHOOK_SECRET_KEY', 'must be 32 bytes, base64-encoded']);
    else secretKey = { id: cfg.WEBHOOK_SECRET_KEY_ID, key };
  } else if (production) {
    errors.push(['WEBHOOK_SECRET_KEY', 'is required when NODE_ENV=production (32 bytes, base64)']);
  } else {
    // Development and tests: stable across restarts of the same installation, never used in production.
    secretKey = { id: cfg.WEBHOOK_SECRET_KEY_ID, key: createHash('sha256').update(`pf-webhooks-secret-key\0${jwtKey}`).digest() };
  }
  const previousSecretKeys: SecretKey[] = [];
  for (const entry of cfg.WEBHOOK_SECRET_PREVIOUS_KEYS) {
    const [id, b64] = entry.split(':');
    const key = Buffer.from(b64 ?? '', 'base64');
    if (!id || key.length !== 32) errors.push(['WEBHOOK_SECRET_PREVIOUS_KEYS', 'entries must be id:base64 with a 32-byte key']);
    else previousSecretKeys.push({ id, key });
  }
  if (cfg.WEBHOOK_RETRY_DELAYS_SECONDS.length > 20) errors.push(['WEBHOOK_RETRY_DELAYS_SECONDS', 'at most 20 waits']);
  // A lease shorter than an attempt hands the delivery to a second worker while the first still sends it.
  if (cfg.WEBHOOK_LEASE_SECONDS !== undefined && cfg.WEBHOOK_LEASE_SECONDS * 1000 <= cfg.WEBHOOK_TIMEOUT_MS + cfg.WEBHOOK_DNS_TIMEOUT_MS) {
    errors.push(['WEBHOOK_LEASE_SECONDS', `must outlast an attempt: more than WEBHOOK_TIMEOUT_MS + WEBHOOK_DNS_TIMEOUT_MS (${cfg.WEBHOOK_TIMEOUT_MS + cfg.WEBHOOK_DNS_TIMEOUT_MS} ms)`]);
  }

  if (errors.length > 0) {
    throw new ConfigError(
      [...new Set(errors.map(([v]) => v))],
      `Invalid configuration:\n${errors.map(([v, m]) => `  ${v}: ${m}`).join('\n')}`,
    );
  }
  return {
    ...cfg,
    allowedRanges,
    extraCa,
    secretKey: secretKey!,
    previousSecretKeys,
    leaseSeconds: cfg.WEBHOOK_LEASE_SECONDS ?? Math.ceil((cfg.WEBHOOK_TIMEOUT_MS * 2) / 1000) + 30,
  };
}
