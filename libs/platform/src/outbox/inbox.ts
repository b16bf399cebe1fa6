import type { EventEnvelope } from '../events/envelope';
import { quoteSchema, type RawSql } from './sql';

/**
 * Runs `apply` at most once per (consumer, event id): the inbox row is inserted in the same
 * transaction as the handler's writes, so a redelivered event finds the row and changes nothing,
 * and a handler that fails leaves no row and is retried.
 *
 * @param transaction runs its callback in one database transaction (e.g. `prisma.$transaction`)
 * @returns whether the event was applied now (false: it had been already)
 */
export async function applyOnce<Tx extends RawSql>(
  transaction: <R>(fn: (tx: Tx) => Promise<R>) => Promise<R>,
  schema: string,
  consumer: string,
  event: EventEnvelope,
  apply: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  const s = quoteSchema(schema);
  return transaction(async (tx) => {
    const inserted = await tx.$executeRawUnsafe(
      `INSERT INTO ${s}.inbox_event (consumer, event_id) VALUES ($1, $2::uuid) ON CONFLICT DO NOTHING`,
      consumer,
      event.id,
    );
    if (inserted === 0) return false;
    await apply(tx);
    return true;
  });
}
