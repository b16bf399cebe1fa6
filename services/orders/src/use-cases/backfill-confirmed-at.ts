import { CONFIRMED_AT_CUTOFF, confirmedAtFromHistory } from '../domain/confirmed-at-backfill';
import type { PrismaClient } from '../generated/prisma/client';

export interface BackfillResult {
  /** Orders looked at: confirmedAt null, created before the cutoff. */
  examined: number;
  /** Orders given a confirmedAt now. */
  backfilled: number;
}

/**
 * Gives orders confirmed before 19 October 2026 the confirmedAt their status history shows
 * (section 3: such orders may read null until backfilled). Idempotent: only orders whose
 * confirmedAt is still null are written, so running it again changes nothing. It is a data
 * correction, not a change of the orders: no event, `updatedAt` and `version` untouched.
 */
export async function backfillConfirmedAt(prisma: PrismaClient, opts: { cutoff?: Date; batchSize?: number } = {}): Promise<BackfillResult> {
  const cutoff = opts.cutoff ?? CONFIRMED_AT_CUTOFF;
  const batchSize = opts.batchSize ?? 500;
  const result: BackfillResult = { examined: 0, backfilled: 0 };
  let after: string | undefined;
  for (;;) {
    const orders = await prisma.order.findMany({
      where: { confirmedAt: null, createdAt: { lt: cutoff }, status: { not: 'draft' }, ...(after ? { uuid: { gt: after } } : {}) },
      orderBy: { uuid: 'asc' },
      take: batchSize,
      select: { uuid: true, version: true, statusChanges: { select: { fromStatus: true, toStatus: true, at: true, trigger: true }, orderBy: { id: 'asc' } } },
    });
    if (orders.length === 0) return result;
    after = orders[orders.length - 1]!.uuid;
    result.examined += orders.length;
    for (const o of orders) {
      const confirmedAt = confirmedAtFromHistory(
        o.statusChanges.map((c) => ({ from: c.fromStatus, to: c.toStatus, at: c.at, trigger: c.trigger })),
        cutoff,
      );
      if (!confirmedAt) continue;
      // Only the order as read: one changed meanwhile (saved as draft, its address rejected) has a
      // history this reading did not see, and is left for the next run.
      const { count } = await prisma.order.updateMany({ where: { uuid: o.uuid, version: o.version, confirmedAt: null }, data: { confirmedAt } });
      result.backfilled += count;
    }
  }
}
