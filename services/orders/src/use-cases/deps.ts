import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { OutgoingEvent } from '@pf/platform/bus/bus';
import type { Logger } from '@pf/platform/logging';
import { inPgTransaction, isRetryableConflict } from '@pf/platform/db/transaction';
import { deferToOutbox } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { StockUnavailableError, type StockApi } from '../adapters/stock-client';
import { ORDERS_SCHEMA } from '../db';
import type { PrismaClient } from '../generated/prisma/client';
import { loadOrder, type Sql, type Tx } from '../repositories/order-repository';
import { repairOrderStock } from './order-stock-repair';
import { clearOwnStockStepWithCommit, clearOwnStockSteps, clearStockSteps, leftStockStep, lockOwnStockSteps, nextStockFence, recordStockStep } from '../repositories/stock-step-repository';

/** What every use case needs. */
export interface OrdersDeps {
  /** The order paths: typed raw SQL in pg transactions. */
  pool: pg.Pool;
  /**
   * The stock-step journal's own connections: a change writes the journal while it holds a
   * connection of `pool`, so taking a second one there would deadlock once every connection is
   * held by a change waiting for another. Required for changes that call the stock service.
   */
  journalPool?: pg.Pool;
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
 * One change in progress: the events it causes (written to the outbox in its transaction), the
 * stock service as the change must call it (journaled), and the compensations of the steps it
 * took there, run if it does not commit.
 */
export interface Unit {
  readonly events: OutgoingEvent[];
  /**
   * The stock service for this change: before its first step for an order (hold, release,
   * consume, return) the order is written to the stock-step journal and committed; the change's
   * COMMIT deletes it. A process that ends in between leaves the row for the stock repair.
   */
  readonly stock: StockApi;
  /** Registers the compensation of a step already taken in another service. */
  onRollback(compensate: () => Promise<void>): void;
}

const ATTEMPTS = 4;

const LOCK_ORDERS = `SELECT 1 FROM orders.orders WHERE uuid = ANY($1::uuid[]) ORDER BY uuid FOR UPDATE`;

/**
 * Runs `work` in one transaction and writes its events to the outbox in it: the change and its
 * events commit together or not at all. When it does not commit, the compensations of the steps
 * taken in other services run (newest first), so a failed change leaves no stock held for it.
 * A transaction that lost a deadlock or serialization race runs again.
 */
export async function inTransaction<R>(deps: Pick<OrdersDeps, 'pool' | 'logger' | 'journalPool'> & { stock?: StockApi }, work: (tx: Tx, unit: Unit) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const compensations: (() => Promise<void>)[] = [];
    const journaled: string[] = [];
    // This attempt's name in the stock-step journal: it counts and clears only its own rows.
    const changeId = randomUUID();
    const outcome = { uncertain: false, fencedOut: false };
    let undoneAlready = false;
    // `journal`: where this change's rows are cleared once undone (the journal's pool, or the
    // transaction that holds them locked after a failed COMMIT: another connection would wait for it).
    const undo = async (cause: unknown, journal: Sql | undefined = deps.journalPool): Promise<void> => {
      undoneAlready = true;
      if (outcome.fencedOut) {
        // A later change of the order fenced this one out in stock: it owns the order's stock now
        // (its repair read what this change's steps did). Compensations would be refused, and this
        // change's journal row, if still there, is the stock repair's to clear (the later change's
        // repair may have failed and left it so).
        deps.logger.warn({ orders: journaled, err: cause }, 'a later change of the order took over its stock; this change undoes nothing');
        return;
      }
      let undone = true;
      for (const compensate of compensations.reverse()) {
        try {
          await compensate();
        } catch (cerr) {
          undone = false;
          deps.logger.error({ err: cerr, cause }, 'compensation of a failed order change failed; the stock repair will put it right');
        }
      }
      // Every step undone, and every step's outcome known: nothing for the repair to do. Otherwise
      // the rows stay for it: a step that timed out may have been done all the same (stock commits
      // what it was asked after the client gave up), and no compensation was registered for it.
      // (Only a change that had the journal's pool journaled anything.)
      if (outcome.uncertain && journaled.length > 0) deps.logger.warn({ orders: journaled, err: cause }, 'a stock step ended without a definite answer; the stock repair will reconcile the order');
      if (undone && !outcome.uncertain && journal) await clearOwnStockSteps(journal, journaled, changeId).catch((cerr) => deps.logger.warn({ err: cerr }, 'stock-step journal not cleared; the repair will find nothing to do'));
    };
    // A failure of COMMIT itself (a deferred write refused there): the change's lock is gone, so its
    // steps are undone under the order's lock taken again, and only while its journal rows are
    // still there. A change of the order that got the lock first found them and put the order's
    // stock right (the stock repair) before building on it: undoing now would undo that change's
    // holds. Then the rows are gone (or another change's row is there) and nothing is undone here.
    // The rows themselves are locked too: an order this change created has no row to lock, and a
    // COMMIT that did go through after all (its answer lost) is waited for, its delete then seen.
    const undoAfterFailedCommit = async (cause: unknown): Promise<void> => {
      if (journaled.length === 0 || !deps.journalPool) {
        await undo(cause);
        return;
      }
      await inPgTransaction(deps.pool, async (tx) => {
        await tx.query(LOCK_ORDERS, [[...journaled].sort()]);
        if ((await lockOwnStockSteps(tx, journaled, changeId)) < journaled.length) {
          undoneAlready = true;
          deps.logger.warn({ orders: journaled, err: cause }, 'a change of the order put its stock right before this failed change could undo its steps; nothing undone');
          return;
        }
        await undo(cause, tx);
      });
    };
    try {
      return await inPgTransaction(deps.pool, async (tx) => {
        const stock = journaledStock(deps, tx, { changeId, orders: journaled }, outcome);
        const unit: Unit = { events: [], stock, onRollback: (c) => compensations.push(c) };
        let result: R;
        try {
          result = await work(tx, unit);
        } catch (err) {
          // Undone before ROLLBACK, while this change still holds the order's lock: a change
          // waiting for it must not build on stock half given back, nor have its own journal row
          // taken by this one's.
          await undo(err);
          throw err;
        }
        // Sent with COMMIT, like the change's other last writes.
        deferToOutbox(tx, ORDERS_SCHEMA, unit.events);
        return result;
      });
    } catch (err) {
      if (!undoneAlready) {
        // Not undone (the database failing here too): the journal rows stay for the stock repair.
        await undoAfterFailedCommit(err).catch((uerr) => deps.logger.error({ err: uerr, cause: err }, 'the steps of a change whose COMMIT failed could not be undone; the stock repair will put them right'));
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

/** The stock service could not be asked (or, `detail` says, not yet): a 503 the client may retry. */
export function stockUnavailable(detail = 'Stock could not be checked right now; try again shortly.'): Problem {
  return new Problem('unavailable', { detail });
}

/**
 * `deps.stock` with each order journaled (stock_step, committed) before its first step in this
 * change (hold, release, consume, return), and the row deleted by the change's COMMIT. Every call
 * for a journaled order, compensations included, carries the row's fence token; reads pass
 * straight through. `journaled.orders` collects the
 * orders whose rows this change (`journaled.changeId`) wrote (deleted by its COMMIT, or once its steps are undone);
 * `outcome.uncertain` is set when a step failed other than by stock's own refusal (a time-out, a
 * lost connection): whether it was done is unknown, so its row must stay for the repair.
 */
function journaledStock(
  deps: Pick<OrdersDeps, 'pool' | 'journalPool' | 'logger'> & { stock?: StockApi },
  tx: Tx,
  journaled: { changeId: string; orders: string[] },
  outcome: { uncertain: boolean; fencedOut: boolean },
): StockApi {
  const stock = deps.stock;
  // The fence token of each order this change journaled (its row's).
  const fences = new Map<string, string>();
  const seen = new Set<string>();
  const journal = async (orderUuid: string): Promise<StockApi> => {
    if (!stock) throw new Error('this change has no stock service');
    const uuid = orderUuid.toLowerCase();
    if (!seen.has(uuid)) {
      seen.add(uuid);
      const journalPool = deps.journalPool;
      if (!journalPool) throw new Error('a change that calls the stock service needs OrdersDeps.journalPool');
      let fence = await recordStockStep(journalPool, uuid, journaled.changeId);
      if (fence === null) {
        // A row left by a change of this order that did not finish: its stock is put right first
        // (this change holds the order's lock; the order as committed is read on another
        // connection), or this change would build on it (a countdown sending an order whose
        // cancellation was lost would consume nothing, and the stock would be sold twice). The
        // repair raises the order's fence in stock first, so a call of that change still on its
        // way cannot land after it.
        const left = await leftStockStep(journalPool, uuid);
        const repaired = left
          ? await repairOrderStock(stock.fenced(await nextStockFence(journalPool)), deps.logger, uuid, await loadOrder(journalPool, uuid), left.startedAt)
          : 'fine';
        // Its stock is gone: the order must move first, which the stock repair does (the row stays).
        if (repaired === 'stock-lost') throw stockUnavailable("The order's stock is being put right after an interrupted change; try again in a few minutes.");
        await clearStockSteps(journalPool, [uuid]);
        fence = await recordStockStep(journalPool, uuid, journaled.changeId);
        // Another row already again: no change of the order can write one while this one holds it.
        if (fence === null) throw stockUnavailable("The order's stock steps could not be journaled; try again shortly.");
      }
      fences.set(uuid, fence);
      journaled.orders.push(uuid);
      clearOwnStockStepWithCommit(tx, uuid, journaled.changeId);
    }
    return fenced(uuid);
  };
  // The stock service as this change calls it for the order: with its fence token once journaled.
  const fenced = (orderUuid: string): StockApi => {
    if (!stock) throw new Error('this change has no stock service');
    const fence = fences.get(orderUuid.toLowerCase());
    return fence === undefined ? stock : stock.fenced(fence);
  };
  /**
   * A journaled step; one that fails other than by stock's refusal (a 4xx problem, or this change
   * fenced out) or a request that never left (no connection) has an unknown outcome.
   */
  const step = async <T>(orderUuid: string, call: (api: StockApi) => Promise<T>): Promise<T> => {
    const api = await journal(orderUuid);
    try {
      return await call(api);
    } catch (err) {
      const refused = err instanceof Problem && err.status < 500;
      const nothingDone = err instanceof StockUnavailableError && err.nothingDone;
      if (!refused && !nothingDone) outcome.uncertain = true;
      if (err instanceof StockUnavailableError && err.fencedOut) outcome.fencedOut = true;
      throw err;
    }
  };
  return {
    holdStock: (input) => step(input.orderUuid, (api) => api.holdStock(input)),
    releaseHolds: (orderUuid, locationCodes) => step(orderUuid, (api) => api.releaseHolds(orderUuid, locationCodes)),
    consumeHolds: (orderUuid, locationCodes) => step(orderUuid, (api) => api.consumeHolds(orderUuid, locationCodes)),
    returnHolds: (orderUuid, locationCodes) => step(orderUuid, (api) => api.returnHolds(orderUuid, locationCodes)),
    reinstateHolds: (orderUuid, holdIds) => fenced(orderUuid).reinstateHolds(orderUuid, holdIds),
    restoreHolds: (orderUuid, holdIds) => fenced(orderUuid).restoreHolds(orderUuid, holdIds),
    reconsumeHolds: (orderUuid, holdIds) => fenced(orderUuid).reconsumeHolds(orderUuid, holdIds),
    unconsumeHolds: (orderUuid, holdIds) => fenced(orderUuid).unconsumeHolds(orderUuid, holdIds),
    orderHolds: (orderUuid) => fenced(orderUuid).orderHolds(orderUuid),
    // The repair's own steps, never a change's: a change's calls carry its journal row's token.
    fenceOrderHolds: () => {
      throw new Error("fenceOrderHolds is the stock repair's, not a change's (use deps.stock.fenced)");
    },
    fenced: () => {
      throw new Error("a change's stock calls carry its own journal token (use deps.stock.fenced for a repair)");
    },
  };
}
