import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { openPool } from '@pf/platform/db/pool';
import type { Logger } from '@pf/platform/logging';
import { PrismaClient } from './generated/prisma/client';

/** The Postgres schema orders owns; its outbox_event and inbox_event tables are in it. */
export const ORDERS_SCHEMA = 'orders';

/** A Prisma client on the orders schema through the pg driver adapter (no Rust engine). */
export function createPrismaClient(databaseUrl: string, poolMax = 4): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: poolMax }, { schema: ORDERS_SCHEMA }),
  });
}

/**
 * The pg pool of the use cases: the order paths are typed raw SQL (Prisma's nested writes cost
 * several times more per order on the hot path).
 */
export function createPool(databaseUrl: string, max = 10, logger?: Logger): pg.Pool {
  return openPool({ connectionString: databaseUrl, max }, logger, 'orders');
}
