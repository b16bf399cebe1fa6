import type pg from 'pg';
import { prepared } from '@pf/platform/db/statement';
import { rowsRead, type Queryable, type Read } from '@pf/platform/db/transaction';
import type { Prisma, PrismaClient } from '../generated/prisma/client';

/**
 * What the raw-SQL repositories take: the pool (a read) or a write transaction's client
 * (use-cases/deps.ts changeWithEvents). The SQL names the schema `stock` explicitly.
 */
export type Sql = Queryable;

/** What the Prisma repositories take (reads and changes outside the write transactions). */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * The rows of one statement. Every statement of these repositories is a text fixed in code, so
 * each is prepared once per connection (Postgres skips parsing and planning it again).
 */
export async function rowsOf<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R[]> {
  return (await sql.query<R>(prepared('stock', text, values))).rows;
}

/** rowsOf as a read (platform db/transaction `Read`), so a transaction can send it with others. */
export function readRows<R extends pg.QueryResultRow, T>(text: string, values: unknown[], answer: (rows: R[]) => T): Read<T> {
  return rowsRead(prepared('stock', text, values), answer);
}

/** The number of rows one statement changed (prepared, as rowsOf). */
export async function changed(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  return (await sql.query(prepared('stock', text, values))).rowCount ?? 0;
}
