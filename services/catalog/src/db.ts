import { PrismaPg } from '@prisma/adapter-pg';
import { CONNECTION_DEFAULTS } from '@pf/platform/db/pool';
import { PrismaClient } from './generated/prisma/client';
import { CATALOG_SCHEMA } from './use-cases/deps';

/** A Prisma client on the catalog schema through the pg driver adapter (no Rust engine). */
export function createPrismaClient(databaseUrl: string, poolMax = 10): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ ...CONNECTION_DEFAULTS, connectionString: databaseUrl, max: poolMax }, { schema: CATALOG_SCHEMA }),
  });
}
