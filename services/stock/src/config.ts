import { commonConfigShape, ConfigError, env, loadConfig } from '@pf/platform/config';
import { isCountryCode } from '@pf/platform/countries';

/** Settings of the stock service itself, read from the environment (ServiceDeps.env). */
export const stockConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  /** Connections of the service's database pool, shared by the write transactions and Prisma (the outbox relay has its own small pool). */
  STOCK_DB_POOL_MAX: env.int(10, 1, 200),
  /** Country of the print-on-demand supplier location that holds report (ISO 3166-1 alpha-2). */
  STOCK_POD_COUNTRY_CODE: env.string('GB'),
};

export type StockConfig = ReturnType<typeof loadStockConfig>;

export function loadStockConfig(source: NodeJS.ProcessEnv = process.env) {
  const cfg = loadConfig(stockConfigShape, source);
  if (!isCountryCode(cfg.STOCK_POD_COUNTRY_CODE)) {
    throw new ConfigError(
      ['STOCK_POD_COUNTRY_CODE'],
      'Invalid configuration:\n  STOCK_POD_COUNTRY_CODE: must be an ISO 3166-1 alpha-2 country code in upper case',
    );
  }
  return cfg;
}
