import { env, loadConfig } from '@pf/platform/config';
import { createLogger } from '@pf/platform/logging';
import { loadStockConfig } from './config';
import { openStockDb } from './db';
import { announceFigures } from './use-cases/product-read-model';

/**
 * `node services/stock/dist/announce-figures.js` (DATABASE_URL set): announces the current figure
 * of every product stock knows as `stock-level.revised` (never pushed to channels), for products
 * known before stock announced first figures (docs/stock.md). The outbox relay of the running
 * service publishes them. Safe to run again.
 */
async function main(): Promise<void> {
  const logger = createLogger('stock-announce-figures');
  const cfg = loadConfig({ DATABASE_URL: env.string() });
  const stock = loadStockConfig();
  const db = openStockDb(cfg.DATABASE_URL, 2, logger);
  try {
    const announced = await announceFigures({ pool: db.pool, prisma: db.prisma, podCountryCode: stock.STOCK_POD_COUNTRY_CODE, logger });
    logger.info({ announced }, 'stock figures announced');
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
