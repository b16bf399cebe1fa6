import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { CONNECTION_DEFAULTS, openPool } from '@pf/platform/db/pool';
import type { Logger } from '@pf/platform/logging';
import { inPgTransaction, type QueryRows } from '@pf/platform/db/transaction';
import { pgSql, type RawSql } from '@pf/platform/outbox/sql';
import { PrismaClient } from '../generated/prisma/client';

/** The Postgres schema the webhooks service owns. */
export const WEBHOOKS_SCHEMA = 'webhooks';

/** A Prisma client on the webhooks schema through the pg driver adapter (no Rust engine). */
export function createPrismaClient(databaseUrl: string, poolMax = 5): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ ...CONNECTION_DEFAULTS, connectionString: databaseUrl, max: poolMax }, { schema: WEBHOOKS_SCHEMA }),
  });
}

/**
 * The pg pool of the queue, the consumers and the stock windows. Every connection runs with
 * search_path = webhooks, so the SQL names its tables unqualified, like the migrations.
 */
export function createQueuePool(databaseUrl: string, max = 8, logger?: Logger): pg.Pool {
  return openPool({ connectionString: databaseUrl, max, options: `-c search_path=${WEBHOOKS_SCHEMA}` }, logger, 'webhooks');
}

/** A transaction on one pooled connection; also what the platform's inbox needs (`RawSql`). */
export interface Tx extends RawSql {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<QueryRows<R>>;
}

/** Anything that runs a query: the pool (autocommit) or a transaction. */
export type Queryable = Pick<Tx, 'query'>;

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export async function inTransaction<R>(pool: pg.Pool, work: (tx: Tx) => Promise<R>): Promise<R> {
  return inPgTransaction(pool, (tx) => work({ ...pgSql(tx), query: (text, values) => tx.query(text as string, values as unknown[]) }));
}
