import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { StockLevelChanged } from '@pf/platform/events/stock';
import type { Identity } from '@pf/platform/identity';
import type { Logger } from '@pf/platform/logging';
import { appendToOutbox, newEvent } from '@pf/platform/outbox/outbox';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import type { ProductFacts } from '../domain/model';
import { figureChanges, type FigureSnapshot } from '../domain/stock-figure';
import { figuresOfProducts } from '../repositories/stock-repository';

/** The Postgres schema stock owns; its outbox_event and inbox_event tables are in it. */
export const STOCK_SCHEMA = 'stock';

/** What every use case needs. */
export interface StockDeps {
  prisma: PrismaClient;
  /** Country of the print-on-demand location (ISO 3166-1 alpha-2). */
  podCountryCode: string;
  /** Injected so tests can pin time; defaults to the wall clock. */
  now?: () => Date;
  logger?: Logger;
}

export type Tx = Prisma.TransactionClient;

export function nowOf(deps: StockDeps): Date {
  return deps.now?.() ?? new Date();
}

/** Events per outbox INSERT. */
const OUTBOX_CHUNK = 1000;

/** How many times a transaction that lost a serialization or deadlock race is run again. */
const ATTEMPTS = 5;

/**
 * Runs a state change and records its events in the outbox in the same transaction: both commit
 * or neither does. The work returns its result and the events it caused.
 *
 * The use cases lock rows in one fixed order (order advisory lock, then warehouse, then products
 * by uuid), so deadlocks should not happen; should Postgres still abort the transaction for a
 * deadlock or a serialization failure, the whole work runs again (it reads everything afresh), so
 * callers never see such an error.
 */
export async function changeWithEvents<R>(
  deps: StockDeps,
  work: (tx: Tx) => Promise<{ result: R; events: OutgoingEvent[] }>,
  opts: { timeoutMs?: number } = {},
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.prisma.$transaction(
        async (tx) => {
          const { result, events } = await work(tx);
          // Disabling a warehouse may change thousands of figures: stay far below Postgres's
          // 65535 bind parameters per statement (four per event).
          for (let i = 0; i < events.length; i += OUTBOX_CHUNK) await appendToOutbox(tx, STOCK_SCHEMA, events.slice(i, i + OUTBOX_CHUNK));
          return result;
        },
        // Holds may queue behind each other's product locks: wait for a connection and run longer
        // than Prisma's defaults (2 s, 5 s) before giving up.
        { maxWait: 10_000, timeout: opts.timeoutMs ?? 30_000 },
      );
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(err)) throw err;
      deps.logger?.warn({ err, attempt }, 'stock transaction lost a lock race; running it again');
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.floor(Math.random() * 20)));
    }
  }
}

/** Postgres 40001 (serialization failure) or 40P01 (deadlock), however Prisma wraps it. */
export function isRetryableConflict(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return false;
    seen.add(e);
    const o = e as Record<string, unknown>;
    if (o.code === 'P2034' || o.code === '40001' || o.code === '40P01' || o.originalCode === '40001' || o.originalCode === '40P01') return true;
    if (o.kind === 'TransactionWriteConflict') return true;
    return ['cause', 'meta', 'driverAdapterError'].some((k) => visit(o[k], depth + 1));
  };
  return visit(err, 0);
}

/** Who made a change, as the adjustments log records it. */
export function actorOf(identity: Identity): string {
  switch (identity.kind) {
    case 'service':
      return `service:${identity.service}`;
    case 'backoffice':
      return `backoffice:${identity.userId}`;
    case 'channel':
      return `channel:${identity.channelId}`;
  }
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
