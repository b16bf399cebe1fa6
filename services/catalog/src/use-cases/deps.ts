import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { appendToOutbox } from '@pf/platform/outbox/outbox';
import type { Prisma, PrismaClient } from '../generated/prisma/client';

/** The Postgres schema catalog owns; its outbox_event table is in it. */
export const CATALOG_SCHEMA = 'catalog';

/** What every use case needs. */
export interface CatalogDeps {
  prisma: PrismaClient;
  /** Injected so tests can pin time; defaults to the wall clock. */
  now?: () => Date;
}

/**
 * Runs a state change and records its events in the outbox in the same transaction: both commit
 * or neither does. The work returns its result and the events it caused.
 */
export async function changeWithEvents<R>(
  deps: CatalogDeps,
  work: (tx: Prisma.TransactionClient) => Promise<{ result: R; events: OutgoingEvent[] }>,
): Promise<R> {
  return deps.prisma.$transaction(async (tx) => {
    const { result, events } = await work(tx);
    await appendToOutbox(tx, CATALOG_SCHEMA, events);
    return result;
  });
}

export function nowOf(deps: CatalogDeps): Date {
  return deps.now?.() ?? new Date();
}
