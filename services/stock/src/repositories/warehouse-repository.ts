import { Prisma } from '../generated/prisma/client';
import type { Warehouse } from '../domain/model';
import type { Db } from './db';

/** True for a unique-constraint violation (a warehouse code taken in the team). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

export function findWarehouse(db: Db, id: string): Promise<Warehouse | null> {
  return db.warehouse.findUnique({ where: { id } });
}

export function findWarehouseByCode(db: Db, teamCode: string, code: string): Promise<Warehouse | null> {
  return db.warehouse.findUnique({ where: { teamCode_code: { teamCode, code } } });
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

export function updateWarehouse(db: Db, id: string, change: { name?: string; countryCode?: string; enabled?: boolean }): Promise<Warehouse> {
  return db.warehouse.update({ where: { id }, data: change });
}

/**
 * Reads the warehouse and locks its row (FOR NO KEY UPDATE: stock and hold rows referencing it
 * can still be written), so two changes of one warehouse run one after the other.
 */
export async function lockWarehouse(db: Db, id: string): Promise<Warehouse | null> {
  const rows = await db.$queryRawUnsafe<
    { id: string; team_code: string; code: string; name: string; country_code: string; enabled: boolean; created_at: Date; updated_at: Date }[]
  >(
    `SELECT id::text AS id, team_code, code, name, country_code, enabled, created_at, updated_at
       FROM stock.warehouse WHERE id = $1::uuid FOR NO KEY UPDATE`,
    id,
  );
  const r = rows[0];
  return r
    ? { id: r.id, teamCode: r.team_code, code: r.code, name: r.name, countryCode: r.country_code, enabled: r.enabled, createdAt: r.created_at, updatedAt: r.updated_at }
    : null;
}

/** The products with a stock row in the warehouse (whose figure the warehouse's state affects). */
export async function productsStockedIn(db: Db, warehouseId: string): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ product_uuid: string }[]>(
    'SELECT product_uuid::text AS product_uuid FROM stock.stock_level WHERE warehouse_id = $1::uuid ORDER BY product_uuid',
    warehouseId,
  );
  return rows.map((r) => r.product_uuid);
}
