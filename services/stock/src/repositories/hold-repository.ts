import type { HoldStatus, StockHold } from '../domain/model';
import { printOnDemandLocation, warehouseLocation } from '../domain/model';
import { holdMoveTimes, type HoldMove } from '../domain/hold-stock-moves';
import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { outboxChannel } from '@pf/platform/outbox/sql';
import { outboxInsertSql, outboxValues } from '@pf/platform/outbox/outbox';
import { read, type PgTransaction, type Read } from '@pf/platform/db/transaction';
import { prepared } from '@pf/platform/db/statement';
import { changed, readRows, rowsOf, type Sql } from './db';
import { holdDeltaValues, holdDeltasSql } from './stock-repository';

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
export function lockOrderRead(orderUuid: string): Read<void> {
  return readRows(`SELECT pg_advisory_xact_lock(hashtextextended('stock-hold:' || $1, 0))::text`, [orderUuid.toLowerCase()], () => undefined);
}

/**
 * The order's holds (all statuses unless `status` is given), by line number then location. After
 * lockOrderRead in the same round trip it reads them under the order's lock (its own snapshot).
 */
export function holdsOfOrderRead(orderUuid: string, podCountryCode: string, status?: HoldStatus): Read<StockHold[]> {
  return readRows<HoldRow, StockHold[]>(
    `${HOLD_SELECT} WHERE h.order_uuid = $1::uuid ${status ? 'AND h.status = $2' : ''}
      ORDER BY h.line_number, h.warehouse_id NULLS LAST, h.id`,
    status ? [orderUuid, status] : [orderUuid],
    (rows) => rows.map((r) => toHold(r, podCountryCode)),
  );
}

export function holdsOfOrder(sql: Sql, orderUuid: string, podCountryCode: string, status?: HoldStatus): Promise<StockHold[]> {
  return read(sql, holdsOfOrderRead(orderUuid, podCountryCode, status));
}

/** What holding stock for an order writes: holds released and placed, `held` moved per (product, warehouse). */
export interface HoldChange {
  /** Placed holds of the locked order to release. */
  releasedIds: readonly string[];
  placed: readonly { teamCode: string; orderUuid: string; lineNumber: number; productUuid: string; warehouseId: string | null; quantity: number }[];
  /** Non-zero moves of existing stock rows (applyHoldDeltas's). */
  deltas: readonly { productUuid: string; warehouseId: string; held: number; onHand: number }[];
  at: Date;
}

/** releasePlacedHolds's UPDATE: the time is `$at`, the hold ids `$ids` (also part of a hold's one statement). */
function releasePlacedSql(at: number, ids: number): string {
  return `UPDATE stock.stock_hold SET status = 'released', released_at = $${at} WHERE id = ANY($${ids}::bigint[]) AND status = 'placed'`;
}

const WRITE_HOLD_CHANGE = `
  WITH released AS (${releasePlacedSql(1, 2)} RETURNING 1),
       levels AS (${holdDeltasSql(3)} RETURNING 1),
       placed AS (
         INSERT INTO stock.stock_hold (team_code, order_uuid, line_number, product_uuid, warehouse_id, quantity, status, placed_at)
         SELECT d.team_code, d.order_uuid, d.line_number, d.product_uuid, d.warehouse_id, d.quantity, 'placed', $1
           FROM unnest($7::text[], $8::uuid[], $9::int[], $10::uuid[], $11::uuid[], $12::int[])
                AS d(team_code, order_uuid, line_number, product_uuid, warehouse_id, quantity)
         RETURNING 1),
       appended AS (${outboxInsertSql('stock', 13)} RETURNING 1)
  SELECT stock.expect_count('writeHoldChange: holds released', (SELECT count(*) FROM released), $18),
         stock.expect_count('writeHoldChange: stock rows updated', (SELECT count(*) FROM levels), $19),
         stock.expect_count('writeHoldChange: holds placed', (SELECT count(*) FROM placed), $20),
         (SELECT pg_notify($17, '') WHERE cardinality($13::uuid[]) > 0) AS notified`;

/**
 * Writes a hold change and its events in ONE statement, sent with COMMIT: the rows of the
 * products it changes are locked from the read of their levels to the commit, so every round trip
 * saved there is saved for every order waiting on those products. The statement checks its own
 * counts (stock.expect_count, migration 0004), as the single-purpose writes do, so a wrong count
 * fails the transaction before COMMIT.
 */
export function writeHoldChange(tx: PgTransaction, change: HoldChange, events: readonly OutgoingEvent[]): void {
  const { placed, deltas } = change;
  tx.defer(prepared('stock', WRITE_HOLD_CHANGE, [
    change.at,
    [...change.releasedIds],
    ...holdDeltaValues(deltas),
    placed.map((h) => h.teamCode),
    placed.map((h) => h.orderUuid),
    placed.map((h) => h.lineNumber),
    placed.map((h) => h.productUuid),
    placed.map((h) => h.warehouseId),
    placed.map((h) => h.quantity),
    ...outboxValues(events),
    outboxChannel('stock'),
    change.releasedIds.length,
    deltas.length,
    placed.length,
  ]));
}

/** Moves placed holds to released; the ids must be placed holds of a locked order. */
export async function releasePlacedHolds(sql: Sql, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  const updated = await changed(
    sql,
    releasePlacedSql(2, 1),
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
 * undone), consumed -> placed (a sending undone), with the times holdMoveTimes says. Every hold
 * must be in `from`.
 */
export async function moveHolds(
  sql: Sql,
  holds: readonly { id: string; taken: number }[],
  move: HoldMove,
  at: Date,
): Promise<void> {
  if (holds.length === 0) return;
  const values: unknown[] = [holds.map((h) => h.id), holds.map((h) => h.taken), move.to, move.from];
  const times = holdMoveTimes(move, at);
  const sets = (
    [
      ['consumed_at', times.consumedAt],
      ['returned_at', times.returnedAt],
    ] as const
  ).flatMap(([column, value]) => (value === undefined ? [] : value === null ? [`${column} = NULL`] : [`${column} = $${values.push(value)}`]));
  const updated = await changed(
    sql,
    `UPDATE stock.stock_hold h SET status = $3, taken = d.taken, ${sets.join(', ')}
       FROM unnest($1::bigint[], $2::int[]) AS d(id, taken)
      WHERE h.id = d.id AND h.status = $4`,
    values,
  );
  if (updated !== holds.length) throw new Error(`moveHolds: ${updated} of ${holds.length} holds were ${move.from}`);
}
