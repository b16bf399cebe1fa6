import type { ActiveState, ProductState } from '@pf/platform/events/catalog';
import type { ProductFacts } from '../domain/model';
import type { RawSql } from '@pf/platform/outbox/sql';
import { noRead, type Read } from '@pf/platform/db/transaction';
import { changed, readRows, rowsOf, type Sql } from './db';

interface ProductRow {
  uuid: string;
  team_code: string;
  sku: string | null;
  active_state: ActiveState;
  pod_enabled: boolean;
  pod_approved: boolean;
  deleted: boolean;
  version: number;
}

const COLUMNS = 'uuid::text AS uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version';

function toFacts(r: ProductRow): ProductFacts {
  return {
    uuid: r.uuid,
    teamCode: r.team_code,
    sku: r.sku,
    activeState: r.active_state,
    podEnabled: r.pod_enabled,
    podApproved: r.pod_approved,
    deleted: r.deleted,
    version: r.version,
  };
}

/**
 * Applies a product state from a catalog event when it is newer than the stored one (or the
 * product is new). Returns false for a stale state, which changes nothing. A state naming another
 * team than the stored one is ignored too: products never move between teams.
 */
export async function applyProductState(sql: Sql, state: ProductState): Promise<boolean> {
  const applied = await changed(
    sql,
    `INSERT INTO stock.product AS p (uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version, updated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (uuid) DO UPDATE
        SET sku = EXCLUDED.sku, active_state = EXCLUDED.active_state, pod_enabled = EXCLUDED.pod_enabled,
            pod_approved = EXCLUDED.pod_approved, deleted = EXCLUDED.deleted, version = EXCLUDED.version, updated_at = now()
      WHERE p.version < EXCLUDED.version AND p.team_code = EXCLUDED.team_code`,
    [state.productUuid, state.teamCode, state.sku, state.activeState, state.podEnabled, state.podApproved, state.deleted, state.version],
  );
  return applied > 0;
}

/**
 * Records products the catalog reported outside an event (the demo seeder) at version 0, unless
 * the product is already known: every event (version 1 and up) then wins.
 */
export async function insertUnknownProducts(db: RawSql, products: Omit<ProductFacts, 'version'>[]): Promise<number> {
  if (products.length === 0) return 0;
  return db.$executeRawUnsafe(
    `INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version)
     SELECT * , 0 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::boolean[])
     ON CONFLICT (uuid) DO NOTHING`,
    products.map((p) => p.uuid),
    products.map((p) => p.teamCode),
    products.map((p) => p.sku),
    products.map((p) => p.activeState),
    products.map((p) => p.podEnabled),
    products.map((p) => p.podApproved),
    products.map((p) => p.deleted),
  );
}

export async function findProducts(sql: Sql, uuids: readonly string[]): Promise<ProductFacts[]> {
  if (uuids.length === 0) return [];
  const rows = await rowsOf<ProductRow>(sql, `SELECT ${COLUMNS} FROM stock.product WHERE uuid = ANY($1::uuid[])`, [[...uuids]]);
  return rows.map(toFacts);
}

/**
 * Reads the products and locks their rows for the rest of the transaction, in uuid order. Every
 * change of a product's stock figure (stock, holds, warehouses) takes these locks first, so the
 * changes of one product run one after the other, each event carries the figures its own change
 * produced, and the fixed order means two transactions never wait for each other in a cycle.
 * FOR NO KEY UPDATE: it does not block the foreign-key checks of rows referencing the product.
 */
export function lockProductsRead(uuids: readonly string[]): Read<ProductFacts[]> {
  if (uuids.length === 0) return noRead([]);
  return readRows<ProductRow, ProductFacts[]>(
    `SELECT ${COLUMNS} FROM stock.product WHERE uuid = ANY($1::uuid[]) ORDER BY uuid FOR NO KEY UPDATE`,
    [[...new Set(uuids)]],
    (rows) => rows.map(toFacts),
  );
}

/** Up to `limit` product uuids after `after` (keyset, uuid order), deleted ones included. */
export async function productUuidsAfter(sql: Sql, after: string | null, limit: number): Promise<string[]> {
  // Two texts, not `$1 IS NULL OR uuid > $1`: the range must reach the plan, generic plans included.
  const rows =
    after === null
      ? await rowsOf<{ uuid: string }>(sql, `SELECT uuid::text AS uuid FROM stock.product ORDER BY uuid LIMIT $1`, [limit])
      : await rowsOf<{ uuid: string }>(sql, `SELECT uuid::text AS uuid FROM stock.product WHERE uuid > $1::uuid ORDER BY uuid LIMIT $2`, [after, limit]);
  return rows.map((r) => r.uuid);
}
