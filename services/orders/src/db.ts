import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { CONNECTION_DEFAULTS, idleInTransactionBound, openPool } from '@pf/platform/db/pool';
import type { Logger } from '@pf/platform/logging';
import { PrismaClient } from './generated/prisma/client';

/** The Postgres schema orders owns; its outbox_event and inbox_event tables are in it. */
export const ORDERS_SCHEMA = 'orders';

/** A Prisma client on the orders schema through the pg driver adapter (no Rust engine). */
export function createPrismaClient(databaseUrl: string, poolMax = 4): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ ...CONNECTION_DEFAULTS, connectionString: databaseUrl, max: poolMax }, { schema: ORDERS_SCHEMA }),
  });
}

/**
 * How many stock calls one change may wait on back to back (a step, then the compensations of
 * the steps before it): what the stock repair's age (ORDERS_STOCK_REPAIR_AFTER_MS) and the pool's
 * idle-in-transaction bound each allow a change, in STOCK_TIMEOUT_MS.
 */
export const STOCK_CALLS_PER_CHANGE = 4;

/**
 * The pg pool of the use cases: the order paths are typed raw SQL (Prisma's nested writes cost
 * several times more per order on the hot path). A change calls stock inside its transaction, so
 * the server ends an idle transaction only after {@link STOCK_CALLS_PER_CHANGE} stock calls.
 */
export function createPool(databaseUrl: string, max = 10, logger?: Logger, stockTimeoutMs = 10_000): pg.Pool {
  return openPool(
    { connectionString: databaseUrl, max, idle_in_transaction_session_timeout: idleInTransactionBound(stockTimeoutMs, STOCK_CALLS_PER_CHANGE) },
    logger,
    'orders',
  );
}

/**
 * The stock-step journal's own pool (OrdersDeps.journalPool): two connections for one-statement
 * writes, never held. Their lock waits are bounded all the same: a change undoing its steps clears
 * its journal row here while its own transaction is still open (it sends the row's delete only
 * with COMMIT, so it holds no lock of it), and were that ever to change, an unbounded wait would
 * hang the change and, with both connections taken, every change that calls stock. Past
 * `lockTimeoutMs` a statement fails (a clear leaves the row for the stock repair).
 */
export function createJournalPool(databaseUrl: string, logger?: Logger, lockTimeoutMs = 5_000): pg.Pool {
  return openPool({ connectionString: databaseUrl, max: 2, lock_timeout: lockTimeoutMs }, logger, 'orders-journal');
}
