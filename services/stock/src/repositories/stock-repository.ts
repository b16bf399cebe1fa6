import type { StockAdjustment, StockLevelRow, Warehouse, WarehouseStock } from '../domain/model';
import { FIGURE_MAX, POD_SENTINEL } from '../domain/stock-figure';
import { noRead, read, type Read } from '@pf/platform/db/transaction';
import { changed, readRows, rowsOf, type Db, type Sql } from './db';

interface LevelRow {
  product_uuid: string;
  on_hand: number;
  held: number;
  w_id: string;
  w_team_code: string;
  w_code: string;
  w_name: string;
  w_country_code: string;
  w_enabled: boolean;
  w_created_at: Date;
  w_updated_at: Date;
}

function toWarehouseStock(r: LevelRow): WarehouseStock {
  const warehouse: Warehouse = {
    id: r.w_id,
    teamCode: r.w_team_code,
    code: r.w_code,
    name: r.w_name,
    countryCode: r.w_country_code,
    enabled: r.w_enabled,
    createdAt: r.w_created_at,
    updatedAt: r.w_updated_at,
  };
  return { productUuid: r.product_uuid, warehouse, onHand: r.on_hand, held: r.held };
}

const LEVEL_SELECT = `
  SELECT s.product_uuid::text AS product_uuid, s.on_hand, s.held,
         w.id::text AS w_id, w.team_code AS w_team_code, w.code AS w_code, w.name AS w_name,
         w.country_code AS w_country_code, w.enabled AS w_enabled, w.created_at AS w_created_at, w.updated_at AS w_updated_at
    FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id`;

/** Every warehouse's stock of the products (enabled or not), by product then warehouse code. */
export function levelsRead(productUuids: readonly string[]): Read<WarehouseStock[]> {
  if (productUuids.length === 0) return noRead([]);
  return readRows<LevelRow, WarehouseStock[]>(
    `${LEVEL_SELECT} WHERE s.product_uuid = ANY($1::uuid[]) ORDER BY s.product_uuid, w.code`,
    [[...productUuids]],
    (rows) => rows.map(toWarehouseStock),
  );
}

export function levelsOf(sql: Sql, productUuids: readonly string[]): Promise<WarehouseStock[]> {
  return read(sql, levelsRead(productUuids));
}

export async function findLevel(sql: Sql, productUuid: string, warehouseId: string): Promise<WarehouseStock | null> {
  const rows = await rowsOf<LevelRow>(sql, `${LEVEL_SELECT} WHERE s.product_uuid = $1::uuid AND s.warehouse_id = $2::uuid`, [productUuid, warehouseId]);
  return rows[0] ? toWarehouseStock(rows[0]) : null;
}

/** Sets the on-hand stock of a (product, warehouse), creating the row on first use. */
export async function saveOnHand(sql: Sql, level: { productUuid: string; warehouseId: string; teamCode: string; onHand: number }): Promise<void> {
  await changed(
    sql,
    `INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand)
     VALUES ($1::uuid, $2::uuid, $3, $4)
     ON CONFLICT (product_uuid, warehouse_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, updated_at = now()`,
    [level.productUuid, level.warehouseId, level.teamCode, level.onHand],
  );
}

export async function insertAdjustment(
  sql: Sql,
  a: Omit<StockAdjustment, 'id' | 'warehouse'> & { teamCode: string; warehouseId: string },
): Promise<void> {
  await changed(
    sql,
    `INSERT INTO stock.stock_adjustment (team_code, product_uuid, warehouse_id, kind, delta, on_hand_after, reason, actor, at)
     VALUES ($1, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9)`,
    [a.teamCode, a.productUuid, a.warehouseId, a.kind, a.delta, a.onHandAfter, a.reason, a.actor, a.at],
  );
}

/** The product's latest adjustments, newest first. */
export async function listAdjustments(db: Db, productUuid: string, limit: number): Promise<StockAdjustment[]> {
  const rows = await db.stockAdjustment.findMany({
    where: { productUuid },
    orderBy: { id: 'desc' },
    take: limit,
    include: { stockLevel: { select: { warehouse: true } } },
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    productUuid: r.productUuid,
    warehouse: r.stockLevel.warehouse,
    kind: r.kind as StockAdjustment['kind'],
    delta: r.delta,
    onHandAfter: r.onHandAfter,
    reason: r.reason,
    actor: r.actor,
    at: r.at,
  }));
}

/**
 * Changes `held` (and, for consumed holds, `on_hand`, never below 0) of many stock rows in one
 * statement. The caller holds the products' locks.
 */
export async function applyHoldDeltas(
  sql: Sql,
  deltas: readonly { productUuid: string; warehouseId: string; held: number; onHand: number }[],
): Promise<void> {
  if (deltas.length === 0) return;
  const updated = await changed(sql, holdDeltasSql(1), holdDeltaValues(deltas));
  if (updated !== deltas.length) throw new Error(`applyHoldDeltas: ${updated} of ${deltas.length} stock rows updated`);
}

/** applyHoldDeltas's UPDATE, its four array parameters from `$first` (also part of a hold's one statement). */
export function holdDeltasSql(first: number): string {
  return `UPDATE stock.stock_level s
        SET held = s.held + d.held, on_hand = GREATEST(s.on_hand + d.on_hand, 0), updated_at = now()
       FROM unnest($${first}::uuid[], $${first + 1}::uuid[], $${first + 2}::int[], $${first + 3}::int[]) AS d(product_uuid, warehouse_id, held, on_hand)
      WHERE s.product_uuid = d.product_uuid AND s.warehouse_id = d.warehouse_id`;
}

export function holdDeltaValues(deltas: readonly { productUuid: string; warehouseId: string; held: number; onHand: number }[]): unknown[] {
  return [deltas.map((d) => d.productUuid), deltas.map((d) => d.warehouseId), deltas.map((d) => d.held), deltas.map((d) => d.onHand)];
}

/**
 * Rule S1 in SQL for one product row `p` (see domain/stock-figure.ts, which the tests hold it to):
 * what its enabled warehouses can still sell, each never below 0, plus the print-on-demand
 * sentinel, at most FIGURE_MAX (summed as bigint, so a page never fails on the cast). `e.ids` holds the team's enabled warehouse ids, so the sum is one index-only range
 * scan of stock_level_figure (product_uuid) INCLUDE (warehouse_id, on_hand, held) per product,
 * without a join.
 */
export const STOCK_FIGURE_SQL = `LEAST(COALESCE((SELECT sum(GREATEST(s.on_hand - s.held, 0))
                     FROM stock.stock_level s
                    WHERE s.product_uuid = p.uuid AND s.warehouse_id = ANY(e.ids)), 0)
          + CASE WHEN p.pod_enabled AND p.pod_approved THEN ${POD_SENTINEL} ELSE 0 END, ${FIGURE_MAX})::int`;

/**
 * One page of the stock-levels feed: the team's listed (non-deleted) products in uuid order after
 * the cursor, with their figure. One statement; the products come from a range scan of the partial
 * index product_feed (team_code, uuid) WHERE NOT deleted.
 */
export function feedPageSql(withCursor: boolean): string {
  return `SELECT p.uuid::text AS product_uuid, p.sku, ${STOCK_FIGURE_SQL} AS stock
            FROM (SELECT ARRAY(SELECT id FROM stock.warehouse WHERE team_code = $1 AND enabled) AS ids) e,
                 stock.product p
           WHERE p.team_code = $1 AND NOT p.deleted${withCursor ? ' AND p.uuid > $3::uuid' : ''}
           ORDER BY p.uuid
           LIMIT $2`;
}

interface FeedRow {
  product_uuid: string;
  sku: string | null;
  stock: number;
}

export async function feedPage(sql: Sql, teamCode: string, after: string | null, limit: number): Promise<StockLevelRow[]> {
  const rows = await rowsOf<FeedRow>(sql, feedPageSql(after !== null), after !== null ? [teamCode, limit, after] : [teamCode, limit]);
  return rows.map((r) => ({ productUuid: r.product_uuid, sku: r.sku, stock: r.stock }));
}

/** The feed's rows (the feed's SQL) for some products of the team, in uuid order: deleted and other teams' products left out. */
export async function feedRowsOf(sql: Sql, teamCode: string, productUuids: readonly string[]): Promise<StockLevelRow[]> {
  if (productUuids.length === 0) return [];
  const rows = await rowsOf<FeedRow>(
    sql,
    `SELECT p.uuid::text AS product_uuid, p.sku, ${STOCK_FIGURE_SQL} AS stock
       FROM (SELECT ARRAY(SELECT id FROM stock.warehouse WHERE team_code = $1 AND enabled) AS ids) e,
            stock.product p
      WHERE p.team_code = $1 AND NOT p.deleted AND p.uuid = ANY($2::uuid[])
      ORDER BY p.uuid`,
    [teamCode, [...productUuids]],
  );
  return rows.map((r) => ({ productUuid: r.product_uuid, sku: r.sku, stock: r.stock }));
}

/**
 * The S1 figure of each product (null when deleted), computed by STOCK_FIGURE_SQL like the feed,
 * with each product's own team's enabled warehouses. For the before/after snapshots of changes
 * that may touch many products at once (a warehouse enabled or disabled).
 */
interface FigureRow {
  product_uuid: string;
  team_code: string;
  sku: string | null;
  figure: number | null;
}

export async function figuresOfProducts(
  sql: Sql,
  productUuids: readonly string[],
): Promise<{ productUuid: string; teamCode: string; sku: string | null; figure: number | null }[]> {
  if (productUuids.length === 0) return [];
  const rows = await rowsOf<FigureRow>(
    sql,
    `SELECT p.uuid::text AS product_uuid, p.team_code, p.sku, CASE WHEN p.deleted THEN NULL ELSE ${STOCK_FIGURE_SQL} END AS figure
       FROM stock.product p
       JOIN (SELECT t.team_code, ARRAY(SELECT id FROM stock.warehouse w WHERE w.team_code = t.team_code AND w.enabled) AS ids
               FROM (SELECT DISTINCT team_code FROM stock.product WHERE uuid = ANY($1::uuid[])) t) e ON e.team_code = p.team_code
      WHERE p.uuid = ANY($1::uuid[])
      ORDER BY p.uuid`,
    [[...productUuids]],
  );
  return rows.map((r) => ({ productUuid: r.product_uuid, teamCode: r.team_code, sku: r.sku, figure: r.figure }));
}
