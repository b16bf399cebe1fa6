import { Prisma } from '../generated/prisma/client';
import type { Warehouse } from '../domain/model';
import { rowsOf, type Db, type Sql } from './db';

interface WarehouseRow {
  id: string;
  team_code: string;
  code: string;
  name: string;
  country_code: string;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id::text AS id, team_code, code, name, country_code, enabled, created_at, updated_at';

function toWarehouse(r: WarehouseRow): Warehouse {
  return { id: r.id, teamCode: r.team_code, code: r.code, name: r.name, countryCode: r.country_code, enabled: r.enabled, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** True for a unique-constraint violation (a warehouse code taken in the team). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

export async function findWarehouse(sql: Sql, id: string): Promise<Warehouse | null> {
  const [row] = await rowsOf<WarehouseRow>(sql, `SELECT ${COLUMNS} FROM stock.warehouse WHERE id = $1::uuid`, [id]);
  return row ? toWarehouse(row) : null;
}

/** The team's warehouses by code. */
export function listWarehouses(db: Db, teamCode: string): Promise<Warehouse[]> {
  return db.warehouse.findMany({ where: { teamCode }, orderBy: { code: 'asc' } });
}

export function insertWarehouse(
  db: Db,
  w: { id: string; teamCode: string; code: string; name: string; countryCode: string; enabled: boolean },
): Promise<Warehouse> {
  return db.warehouse.create({ data: w });
}

/** Changes a (locked) warehouse's name, country or state; the fields left out stay as they are. */
export async function updateWarehouse(sql: Sql, id: string, change: { name?: string; countryCode?: string; enabled?: boolean }): Promise<Warehouse> {
  const [row] = await rowsOf<WarehouseRow>(
    sql,
    `UPDATE stock.warehouse
        SET name = COALESCE($2, name), country_code = COALESCE($3, country_code), enabled = COALESCE($4, enabled), updated_at = now()
      WHERE id = $1::uuid
  RETURNING ${COLUMNS}`,
    [id, change.name ?? null, change.countryCode ?? null, change.enabled ?? null],
  );
  if (!row) throw new Error(`updateWarehouse: no warehouse ${id}`);
  return toWarehouse(row);
}

/**
 * Reads the warehouse and locks its row (FOR NO KEY UPDATE: stock and hold rows referencing it
 * can still be written), so two changes of one warehouse run one after the other.
 */
export async function lockWarehouse(sql: Sql, id: string): Promise<Warehouse | null> {
  const [row] = await rowsOf<WarehouseRow>(sql, `SELECT ${COLUMNS} FROM stock.warehouse WHERE id = $1::uuid FOR NO KEY UPDATE`, [id]);
  return row ? toWarehouse(row) : null;
}

/**
 * Reads the warehouse and share-locks its row for a change of its stock: enabling or disabling it
 * (lockWarehouse) waits for the change and the change for it, so the figures either announces are
 * those the other leaves (a count written while the warehouse was being disabled counted it in
 * its event, and the disable, which had not seen the new row, sent none).
 */
export async function shareWarehouse(sql: Sql, id: string): Promise<Warehouse | null> {
  const [row] = await rowsOf<WarehouseRow>(sql, `SELECT ${COLUMNS} FROM stock.warehouse WHERE id = $1::uuid FOR SHARE`, [id]);
  return row ? toWarehouse(row) : null;
}

/** The products with a stock row in the warehouse (whose figure the warehouse's state affects). */
export async function productsStockedIn(sql: Sql, warehouseId: string): Promise<string[]> {
  const rows = await rowsOf<{ product_uuid: string }>(
    sql,
    'SELECT product_uuid::text AS product_uuid FROM stock.stock_level WHERE warehouse_id = $1::uuid ORDER BY product_uuid',
    [warehouseId],
  );
  return rows.map((r) => r.product_uuid);
}
