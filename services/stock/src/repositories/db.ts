import type { Prisma, PrismaClient } from '../generated/prisma/client';

/**
 * What the repositories take: the client, or a use case's transaction. Raw SQL names the schema
 * `stock` explicitly (Prisma qualifies its own queries from `@@schema`; raw queries run with the
 * connection's default search_path).
 */
export type Db = PrismaClient | Prisma.TransactionClient;
