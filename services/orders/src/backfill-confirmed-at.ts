import { env, loadConfig } from '@pf/platform/config';
import { createLogger } from '@pf/platform/logging';
import { createPrismaClient } from './db';
import { backfillConfirmedAt } from './use-cases/backfill-confirmed-at';

/**
 * `node services/orders/dist/backfill-confirmed-at.js` (DATABASE_URL set): backfills confirmedAt
 * of orders confirmed before 19 October 2026 from their status history. Safe to run again.
 */
async function main(): Promise<void> {
  const logger = createLogger('orders-backfill-confirmed-at');
  const cfg = loadConfig({ DATABASE_URL: env.string() });
  const prisma = createPrismaClient(cfg.DATABASE_URL, 2);
  try {
    const result = await backfillConfirmedAt(prisma);
    logger.info(result, 'confirmedAt backfill done');
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
