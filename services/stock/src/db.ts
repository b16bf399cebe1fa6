import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { openPool } from '@pf/platform/db/pool';
import type { Logger } from '@pf/platform/logging';
import { PrismaClient } from './generated/prisma/client';
import { STOCK_SCHEMA } from './use-cases/deps';

/** Stock's connections: one pg pool, shared by the write transactions (typed raw SQL) and Prisma. */
export interface StockDb {
  pool: pg.Pool;
  /** Prisma through the pg driver adapter (no Rust engine), on the same pool. */
  prisma: PrismaClient;
  /** Disconnects Prisma, then ends the pool. */
  close(): Promise<void>;
}

/**
 * Opens the pool (`poolMax` connections: STOCK_DB_POOL_MAX in the service) and a Prisma client
 * on it. One pool, so the write path's connections and Prisma's reads share the one size the
 * service is configured with, as they did when every transaction went through Prisma.
 */
export function openStockDb(databaseUrl: string, poolMax = 10, logger?: Logger): StockDb {
  // A transaction waits at most 10 s for a connection (openPool's default; Prisma's interactive
  // transactions waited as long).
  const pool = openPool({ connectionString: databaseUrl, max: poolMax }, logger, 'stock');
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { schema: STOCK_SCHEMA }) });
  return {
    pool,
    prisma,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
