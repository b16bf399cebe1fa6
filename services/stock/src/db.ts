import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';
import { STOCK_SCHEMA } from './use-cases/deps';

/** A Prisma client on the stock schema through the pg driver adapter (no Rust engine). */
export function createPrismaClient(databaseUrl: string, poolMax = 10): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: poolMax }, { schema: STOCK_SCHEMA }),
  });
}
