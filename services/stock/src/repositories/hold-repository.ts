import type { HoldStatus, StockHold } from '../domain/model';
import { printOnDemandLocation, warehouseLocation } from '../domain/model';
import type { Db } from './db';

interface HoldRow {
  id: string;
  team_code: string;
  order_uuid: string;
  line_number: number;
  product_uuid: string;
  sku: string | null;
  warehouse_id: string | null;
  warehouse_code: string | null;
  warehouse_country_code: string | null;
  quantity: number;
  status: HoldStatus;
  taken: number;
  placed_at: Date;
  released_at: Date | null;
  consumed_at: Date | null;
  returned_at: Date | null;
}

const HOLD_SELECT = `
  SELECT h.id::text AS id, h.team_code, h.order_uuid::text AS order_uuid, h.line_number, h.product_uuid::text AS product_uuid,
         p.sku, h.warehouse_id::text AS warehouse_id, w.code AS warehouse_code, w.country_code AS warehouse_country_code,
         h.quantity, h.status, h.taken, h.placed_at, h.released_at, h.consumed_at, h.returned_at
    FROM stock.stock_hold h
    JOIN stock.product p ON p.uuid = h.product_uuid
    LEFT JOIN stock.warehouse w ON w.id = h.warehouse_id`;

function toHold(r: HoldRow, podCountryCode: string): StockHold {
  return {
    id: r.id,
    teamCode: r.team_code,
    orderUuid: r.order_uuid,
    lineNumber: r.line_number,
    productUuid: r.product_uuid,
    sku: r.sku,
    warehouseId: r.warehouse_id,
    location:
      r.warehouse_id && r.warehouse_code && r.warehouse_country_code
        ? warehouseLocation({ code: r.warehouse_code, countryCode: r.warehouse_country_code })
        : printOnDemandLocation(podCountryCode),
    quantity: r.quantity,
    status: r.status,
    taken: r.taken,
    placedAt: r.placed_at,
    releasedAt: r.released_at,
    consumedAt: r.consumed_at,
    returnedAt: r.returned_at,
  };
}

/**
 * Serialises every hold change of one order (hold, re-hold, release, reinstate, consume, return)
 * with a transaction-scoped advisory lock on the order uuid. Taken before any row lock, always.
 */
export async function lockOrder(db: Db, orderUuid: string): Promise<void> {
  await db.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('stock-hold:' || $1, 0))::text`, orderUuid.toLowerCase());
}

/** The order's holds (all statuses unless `status` is given), by line number then location. */
export async function holdsOfOrder(db: Db, orderUuid: string, podCountryCode: string, status?: HoldStatus): Promise<StockHold[]> {
  const rows = await db.$queryRawUnsafe<HoldRow[]>(
    `${HOLD_SELECT} WHERE h.order_uuid = $1::uuid ${status ? 'AND h.status = $2' : ''}
      ORDER BY h.line_number, h.warehouse_id NULLS LAST, h.id`,
    ...(status ? [orderUuid, status] : [orderUuid]),
  );
  return rows.map((r) => toHold(r, podCountryCode));
}

export async function insertPlacedHolds(
  db: Db,
  holds: readonly { teamCode: string; orderUuid: string; lineNumber: number; productUuid: string; warehouseId: string | null; quantity: number }[],
  at: Date,
): Promise<void> {
  if (holds.length === 0) return;
  await db.stockHold.createMany({ data: holds.map((h) => ({ ...h, status: 'placed', placedAt: at })) });
}

/** Moves placed holds to released; the ids must be placed holds of a locked order. */
export async function releasePlacedHolds(db: Db, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  const updated = await db.stockHold.updateMany({
    where: { id: { in: ids.map((id) => BigInt(id)) }, status: 'placed' },
    data: { status: 'released', releasedAt: at },
  });
  if (updated.count !== ids.length) throw new Error(`releasePlacedHolds: ${updated.count} of ${ids.length} holds were placed`);
}

/** Moves released holds back to placed (a release undone); the ids must be released holds of a locked order. */
export async function reinstateReleasedHolds(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const updated = await db.stockHold.updateMany({
    where: { id: { in: ids.map((id) => BigInt(id)) }, status: 'released' },
    data: { status: 'placed', releasedAt: null },
  });
  if (updated.count !== ids.length) throw new Error(`reinstateReleasedHolds: ${updated.count} of ${ids.length} holds were released`);
}

/**
 * Moves holds of a locked order from one status to another with what each took off hand:
 * placed -> consumed (sent), consumed -> returned (back on hand), returned -> consumed (a return
 * undone). Every hold must be in `from`.
 */
export async function moveHolds(
  db: Db,
  holds: readonly { id: string; taken: number }[],
  move: { from: 'placed' | 'consumed' | 'returned'; to: 'consumed' | 'returned' },
  at: Date,
): Promise<void> {
  if (holds.length === 0) return;
  // consumed_at is when the stock left; returned_at when it came back (cleared when undone).
  const times =
    move.to === 'returned' ? 'returned_at = $4' : move.from === 'returned' ? 'consumed_at = $4, returned_at = NULL' : 'consumed_at = $4';
  const updated = await db.$executeRawUnsafe(
    `UPDATE stock.stock_hold h SET status = $3, taken = d.taken, ${times}
       FROM unnest($1::bigint[], $2::int[]) AS d(id, taken)
      WHERE h.id = d.id AND h.status = $5`,
    holds.map((h) => h.id),
    holds.map((h) => h.taken),
    move.to,
    at,
    move.from,
  );
  if (updated !== holds.length) throw new Error(`moveHolds: ${updated} of ${holds.length} holds were ${move.from}`);
}
