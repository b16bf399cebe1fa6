/** confirmedAt exists from 19 October 2026 (version 1.1.0); orders confirmed earlier may read null. */
export const CONFIRMED_AT_CUTOFF = new Date('2026-10-19T00:00:00.000Z');

export interface HistoryEntry {
  from: string | null;
  to: string;
  at: Date;
  /** What caused the change; null in history brought over from before it was recorded. */
  trigger: string | null;
}

/**
 * The confirmedAt an order confirmed before the cutoff should have, read from its status history
 * (oldest first), or null when it has none to backfill. Follows section 3: a confirmation is the
 * first move out of draft (or of an unconfirmed holding) into any status but draft, holding or
 * cancelled; it is cleared by a move back to draft and by a rejected shipping address, and kept
 * by everything else (cancelling, holding because the order could not be sent). Only a
 * confirmation before the cutoff is backfilled: later ones were recorded when they happened.
 */
export function confirmedAtFromHistory(history: readonly HistoryEntry[], cutoff: Date = CONFIRMED_AT_CUTOFF): Date | null {
  let confirmedAt: Date | null = null;
  const ordered = [...history].sort((a, b) => a.at.getTime() - b.at.getTime());
  for (const entry of ordered) {
    if (entry.to === 'draft' || (entry.to === 'holding' && entry.trigger === 'reject-shipping-address')) {
      confirmedAt = null;
    } else if (confirmedAt === null && !['holding', 'cancelled'].includes(entry.to)) {
      confirmedAt = entry.at;
    }
  }
  return confirmedAt !== null && confirmedAt.getTime() < cutoff.getTime() ? confirmedAt : null;
}
