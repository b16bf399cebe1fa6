import type pg from 'pg';
import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { StockLevelChanged } from '@pf/platform/events/stock';
import type { Logger } from '@pf/platform/logging';
import { inPgTransaction, isRetryableConflict, noRead, type PgTransaction, type Read } from '@pf/platform/db/transaction';
import { deferToOutbox, newEvent } from '@pf/platform/outbox/outbox';
import type { PrismaClient } from '../generated/prisma/client';
import type { ProductFacts } from '../domain/model';
import { figureChanges, type FigureSnapshot } from '../domain/stock-figure';
import { readRows } from '../repositories/db';
import { figuresOfProducts } from '../repositories/stock-repository';

/** The Postgres schema stock owns; its outbox_event and inbox_event tables are in it. */
export const STOCK_SCHEMA = 'stock';

/** What every use case needs. */
export interface StockDeps {
  /** The write transactions (changeWithEvents) and the raw-SQL reads: typed raw SQL. */
  pool: pg.Pool;
  /** Prisma on the same pool: model reads, warehouse creation, the catalog consumer's inbox transaction. */
  prisma: PrismaClient;
  /** Country of the print-on-demand location (ISO 3166-1 alpha-2). */
  podCountryCode: string;
  /** Injected so tests can pin time; defaults to the wall clock. */
  now?: () => Date;
  logger?: Logger;
}

/** A write transaction (changeWithEvents commits or rolls back). */
export type Tx = PgTransaction;

/**
 * When a change of products' figures happens: the database's clock, read once their rows are
 * locked (send it after the lock). Consumers keep the figure with the newest `changedAt`; stamped
 * by the replica that made the change, two changes of one product made by replicas whose clocks
 * differ could be stamped out of order and the newer figure ignored. One clock, read under the
 * product's lock, orders them as they happened. A pinned test clock wins.
 */
export function changeTimeRead(deps: StockDeps): Read<Date> {
  if (deps.now) return noRead(deps.now());
  return readRows<{ at: Date }, Date>('SELECT clock_timestamp() AS at', [], (rows) => rows[0]!.at);
}

/** How many times a transaction that lost a serialization or deadlock race is run again. */
const ATTEMPTS = 5;

/**
 * Runs a state change and records its events in the outbox in the same transaction: both commit
 * or neither does. The work returns its result and the events it caused.
 *
 * One pg connection, BEGIN ... COMMIT, typed raw SQL: this is the hot path of every order (holds),
 * where Prisma's interactive transactions cost a large part of stock's CPU (docs/stock.md).
 *
 * The use cases lock rows in one fixed order (order advisory lock, then warehouse, then products
 * by uuid), so deadlocks should not happen; should Postgres still abort the transaction for a
 * deadlock or a serialization failure, the whole work runs again (it reads everything afresh), so
 * callers never see such an error.
 *
 * `timeoutMs`: a transaction that ran longer is rolled back instead of committed (as Prisma's
 * interactive transactions were); the connection wait is bounded by the pool (10 s, db.ts).
 */
export async function changeWithEvents<R>(
  deps: StockDeps,
  work: (tx: Tx) => Promise<{ result: R; events: OutgoingEvent[] }>,
  opts: { timeoutMs?: number } = {},
): Promise<R> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(deps.pool, timeoutMs, async (tx) => {
        const { result, events } = await work(tx);
        // However many figures changed (a warehouse disabled: thousands), one statement of four array
        // parameters, sent with COMMIT.
        deferToOutbox(tx, STOCK_SCHEMA, events);
        return result;
      });
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(err)) throw err;
      deps.logger?.warn({ err, attempt }, 'stock transaction lost a lock race; running it again');
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.floor(Math.random() * 20)));
    }
  }
}

/** One transaction on one pooled connection: committed when `work` returns in time, else rolled back. */
async function inTransaction<R>(pool: pg.Pool, timeoutMs: number, work: (tx: Tx) => Promise<R>): Promise<R> {
  const started = Date.now();
  return inPgTransaction(pool, async (tx) => {
    const result = await work(tx);
    if (Date.now() - started > timeoutMs) throw new Error(`stock transaction ran longer than ${timeoutMs} ms: rolled back`);
    return result;
  });
}

/** The S1 figures of (locked) products, as the feed computes them. */
export function figuresOf(tx: Tx, products: readonly ProductFacts[]): Promise<FigureSnapshot[]> {
  return figuresOfProducts(
    tx,
    products.map((p) => p.uuid),
  );
}

/** One `stock-level.changed` per product whose figure differs between the two snapshots. */
export function stockLevelEvents(before: readonly FigureSnapshot[], after: readonly FigureSnapshot[], at: Date): OutgoingEvent[] {
  return figureChanges(before, after).map((c) =>
    newEvent(StockLevelChanged, c.productUuid, {
      teamCode: c.teamCode,
      productUuid: c.productUuid,
      sku: c.sku,
      stock: c.stock,
      previousStock: c.previousStock,
      changedAt: at.toISOString(),
    }),
  );
}
