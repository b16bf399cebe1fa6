import type { HoldStatus, StockHold } from '../domain/model';
import { printOnDemandLocation, warehouseLocation } from '../domain/model';
import { changed, rowsOf, type Sql } from './db';

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
export async function lockOrder(sql: Sql, orderUuid: string): Promise<void> {
  await changed(sql, `SELECT pg_advisory_xact_lock(hashtextextended('stock-hold:' || $1, 0))::text`, [orderUuid.toLowerCase()]);
}

/** The order's holds (all statuses unless `status` is given), by line number then location. */
export async function holdsOfOrder(sql: Sql, orderUuid: string, podCountryCode: string, status?: HoldStatus): Promise<StockHold[]> {
  const rows = await rowsOf<HoldRow>(
    sql,
    `${HOLD_SELECT} WHERE h.order_uuid = $1::uuid ${status ? 'AND h.status = $2' : ''}
      ORDER BY h.line_number, h.warehouse_id NULLS LAST, h.id`,
    status ? [orderUuid, status] : [orderUuid],
  );
  return rows.map((r) => toHold(r, podCountryCode));
}

/** Places holds (one statement, in the given order); `warehouseId` null: print on demand. */
export async function insertPlacedHolds(
  sql: Sql,
  holds: readonly { teamCode: string; orderUuid: string; lineNumber: number; productUuid: string; warehouseId: string | null; quantity: number }[],
  at: Date,
): Promise<void> {
  if (holds.length === 0) return;
  await changed(
    sql,
    `INSERT INTO stock.stock_hold (team_code, order_uuid, line_number, product_uuid, warehouse_id, quantity, status, placed_at)
     SELECT d.team_code, d.order_uuid, d.line_number, d.product_uuid, d.warehouse_id, d.quantity, 'placed', $7::timestamptz
       FROM unnest($1::text[], $2::uuid[], $3::int[], $4::uuid[], $5::uuid[], $6::int[])
            AS d(team_code, order_uuid, line_number, product_uuid, warehouse_id, quantity)`,
    [
      holds.map((h) => h.teamCode),
      holds.map((h) => h.orderUuid),
      holds.map((h) => h.lineNumber),
      holds.map((h) => h.productUuid),
      holds.map((h) => h.warehouseId),
      holds.map((h) => h.quantity),
      at,
    ],
  );
}

/** Moves placed holds to released; the ids must be placed holds of a locked order. */
export async function releasePlacedHolds(sql: Sql, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  const updated = await changed(
    sql,
    `UPDATE stock.stock_hold SET status = 'released', released_at = $2 WHERE id = ANY($1::bigint[]) AND status = 'placed'`,
    [[...ids], at],
  );
  if (updated !== ids.length) throw new Error(`releasePlacedHolds: ${updated} of ${ids.length} holds were placed`);
}

/** Moves released holds back to placed (a release undone); the ids must be released holds of a locked order. */
export async function reinstateReleasedHolds(sql: Sql, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const updated = await changed(
    sql,
    `UPDATE stock.stock_hold SET status = 'placed', released_at = NULL WHERE id = ANY($1::bigint[]) AND status = 'released'`,
    [[...ids]],
  );
  if (updated !== ids.length) throw new Error(`reinstateReleasedHolds: ${updated} of ${ids.length} holds were released`);
}

/**
 * Moves holds of a locked order from one status to another with what each took off hand:
 * placed -> consumed (sent), consumed -> returned (back on hand), returned -> consumed (a return
 * undone). Every hold must be in `from`.
 */
export async function moveHolds(
  sql: Sql,
  holds: readonly { id: string; taken: number }[],
  move: { from: 'placed' | 'consumed' | 'returned'; to: 'consumed' | 'returned' },
  at: Date,
): Promise<void> {
  if (holds.length === 0) return;
  // consumed_at is when the stock left; returned_at when it came back (cleared when undone).
  const times =
    move.to === 'returned' ? 'returned_at = $4' : move.from === 'returned' ? 'consumed_at = $4, returned_at = NULL' : 'consumed_at = $4';
  const updated = await changed(
    sql,
    `UPDATE stock.stock_hold h SET status = $3, taken = d.taken, ${times}
       FROM unnest($1::bigint[], $2::int[]) AS d(id, taken)
      WHERE h.id = d.id AND h.status = $5`,
    [holds.map((h) => h.id), holds.map((h) => h.taken), move.to, at, move.from],
  );
  if (updated !== holds.length) throw new Error(`moveHolds: ${updated} of ${holds.length} holds were ${move.from}`);
}
