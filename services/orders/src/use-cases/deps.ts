import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { OutgoingEvent } from '@pf/platform/bus/bus';
import type { Logger } from '@pf/platform/logging';
import { inPgTransaction, isRetryableConflict } from '@pf/platform/db/transaction';
import { deferToOutbox } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import type { StockApi } from '../adapters/stock-client';
import { ORDERS_SCHEMA } from '../db';
import type { PrismaClient } from '../generated/prisma/client';
import type { Tx } from '../repositories/order-repository';

/** What every use case needs. */
export interface OrdersDeps {
  /** The order paths: typed raw SQL in pg transactions. */
  pool: pg.Pool;
  /** Read models, lists and history. */
  prisma: PrismaClient;
  stock: StockApi;
  /** How long a confirmed order is queued before processing (ORDER_COUNTDOWN_SECONDS). */
  countdownSeconds: number;
  logger: Logger;
  /** Injected so tests can pin time; defaults to the wall clock. */
  now?: () => Date;
  newUuid?: () => string;
}

export function nowOf(deps: Pick<OrdersDeps, 'now'>): Date {
  // Timestamps are stored with millisecond precision: keep the in-memory value equal to what reads give back.
  return new Date(Math.floor((deps.now?.() ?? new Date()).getTime()));
}

export function newUuidOf(deps: OrdersDeps): string {
  return deps.newUuid?.() ?? randomUUID();
}

/**
 * One change in progress: the events it causes (written to the outbox in its transaction) and
 * the compensations of the steps it took in other services (stock holds), run if it does not
 * commit.
 */
export interface Unit {
  readonly events: OutgoingEvent[];
  /** Registers the compensation of a step already taken in another service. */
  onRollback(compensate: () => Promise<void>): void;
}

const ATTEMPTS = 4;

/**
 * Runs `work` in one transaction and writes its events to the outbox in it: the change and its
 * events commit together or not at all. When it does not commit, the compensations of the steps
 * taken in other services run (newest first), so a failed change leaves no stock held for it.
 * A transaction that lost a deadlock or serialization race runs again.
 */
export async function inTransaction<R>(deps: Pick<OrdersDeps, 'pool' | 'logger'>, work: (tx: Tx, unit: Unit) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const compensations: (() => Promise<void>)[] = [];
    const unit: Unit = { events: [], onRollback: (c) => compensations.push(c) };
    try {
      return await inPgTransaction(deps.pool, async (tx) => {
        const result = await work(tx, unit);
        // Sent with COMMIT, like the change's other last writes.
        deferToOutbox(tx, ORDERS_SCHEMA, unit.events);
        return result;
      });
    } catch (err) {
      // Rolled back: the steps taken in other services are undone too.
      for (const compensate of compensations.reverse()) {
        try {
          await compensate();
        } catch (cerr) {
          deps.logger.error({ err: cerr, cause: err }, 'compensation of a failed order change failed');
        }
      }
      if (attempt < ATTEMPTS && isRetryableConflict(err)) {
        await new Promise((r) => setTimeout(r, 5 * attempt + Math.floor(Math.random() * 10)));
        continue;
      }
      throw err;
    }
  }
}

/** The unique constraint a 23505 names, if that is what `err` is. */
export function uniqueViolation(err: unknown): string | null {
  const e = err as { code?: string; constraint?: string } | null;
  return e?.code === '23505' ? (e.constraint ?? '') : null;
}

/** The stock service could not be asked: a 503 the client may retry. */
export function stockUnavailable(): Problem {
  return new Problem('unavailable', { detail: 'Stock could not be checked right now; try again shortly.' });
}
