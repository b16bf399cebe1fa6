import type { ChannelState, TeamState } from '../domain/read-models';
import type { ShippingMethodFacts } from '../domain/model';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import type { ProductState, ShippingMethodState } from '@pf/platform/events/catalog';
import { statement } from '@pf/platform/db/statement';
import { noRead, read, rowsRead, type Read } from '@pf/platform/db/transaction';
import type { Sql } from './order-repository';

/** The consumer's transaction (Prisma), for the inbox and the read-model upserts. */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Newest product state by catalog version; a stale or replayed one changes nothing. `at` (the
 * event's occurredAt) decides between two live products with one SKU (liveProductsRead).
 */
export async function applyProductState(db: Db, s: ProductState, at: Date): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `INSERT INTO orders.product AS p (uuid, team_code, sku, active_state, deleted, version, state_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (uuid) DO UPDATE SET sku = EXCLUDED.sku, active_state = EXCLUDED.active_state, deleted = EXCLUDED.deleted,
                                      version = EXCLUDED.version, state_at = EXCLUDED.state_at
      WHERE p.version < EXCLUDED.version AND p.team_code = EXCLUDED.team_code`,
    s.productUuid,
    s.teamCode,
    s.sku,
    s.activeState,
    s.deleted,
    s.version,
    at,
  );
  return n > 0;
}

export async function applyShippingMethodState(db: Db, s: ShippingMethodState): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `INSERT INTO orders.shipping_method AS m (team_code, code, name, carrier, active, deleted, country_codes, priority, version)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9)
     ON CONFLICT (team_code, code) DO UPDATE SET name = EXCLUDED.name, carrier = EXCLUDED.carrier, active = EXCLUDED.active,
            deleted = EXCLUDED.deleted, country_codes = EXCLUDED.country_codes, priority = EXCLUDED.priority, version = EXCLUDED.version
      WHERE m.version < EXCLUDED.version`,
    s.teamCode,
    s.code,
    s.name,
    s.carrier,
    s.active,
    s.deleted,
    s.countryCodes ?? [],
    s.priority ?? 100,
    s.version,
  );
  return n > 0;
}

/** Accounts events carry no version: the event's occurredAt orders the states of one team. */
export async function applyTeamState(db: Db, s: TeamState, at: Date): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `INSERT INTO orders.team AS t (team_code, name, active, state_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (team_code) DO UPDATE SET name = EXCLUDED.name, active = EXCLUDED.active, state_at = EXCLUDED.state_at
      WHERE t.state_at <= EXCLUDED.state_at`,
    s.teamCode,
    s.name,
    s.active,
    at,
  );
  return n > 0;
}

export async function applyChannelState(db: Db, s: ChannelState, at: Date): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `INSERT INTO orders.channel AS c (channel_id, team_code, channel_code, name, active, standard, state_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (channel_id) DO UPDATE SET name = EXCLUDED.name, active = EXCLUDED.active, standard = EXCLUDED.standard,
                                            state_at = EXCLUDED.state_at
      WHERE c.state_at <= EXCLUDED.state_at AND c.team_code = EXCLUDED.team_code`,
    s.channelId,
    s.teamCode,
    s.channelCode,
    s.name,
    s.active,
    s.standard,
    at,
  );
  return n > 0;
}

const TEAM_ACTIVE = statement('orders', `SELECT active FROM orders.team WHERE team_code = $1`);

/** The team's activity, or null when its events have not arrived. */
export function teamActiveRead(teamCode: string): Read<boolean | null> {
  return rowsRead(TEAM_ACTIVE([teamCode]), (rows: { active: boolean }[]) => rows[0]?.active ?? null);
}

export function teamActive(db: Sql, teamCode: string): Promise<boolean | null> {
  return read(db, teamActiveRead(teamCode));
}

const LIVE_PRODUCTS_BY_SKU = statement(
  'orders',
  `SELECT p.sku, p.uuid::text AS uuid, f.stock FROM orders.product p LEFT JOIN orders.stock_figure f ON f.product_uuid = p.uuid
    WHERE p.team_code = $1 AND p.sku = ANY($2::text[]) AND NOT p.deleted
    ORDER BY p.state_at NULLS FIRST, p.uuid`,
);

/**
 * The team's live products with some SKUs: their uuids by SKU, and the known stock figures (stock
 * read model) by uuid. The catalog gives a SKU to one live product at a time, but when it passes
 * from one product to another their events may arrive here in either order: while both read live,
 * the SKU is the product's whose state is newer (rows come oldest first, the map keeps the last).
 */
export interface ProductsBySku {
  uuidBySku: Map<string, string>;
  figureByProduct: Map<string, number>;
}

/** The team's live products with one of these SKUs, with their figures, in one statement. */
export function liveProductsRead(teamCode: string, skus: readonly string[]): Read<ProductsBySku> {
  if (skus.length === 0) return noRead({ uuidBySku: new Map(), figureByProduct: new Map() });
  return rowsRead(LIVE_PRODUCTS_BY_SKU([teamCode, [...new Set(skus)]]), (rows: { sku: string; uuid: string; stock: number | null }[]) => ({
    uuidBySku: new Map(rows.map((p) => [p.sku, p.uuid])),
    figureByProduct: new Map(rows.flatMap((p) => (p.stock === null ? [] : [[p.uuid, p.stock] as const]))),
  }));
}

/** The team's live products with one of these SKUs, by SKU. */
export async function liveProductsBySku(db: Sql, teamCode: string, skus: readonly string[]): Promise<Map<string, string>> {
  return (await read(db, liveProductsRead(teamCode, skus))).uuidBySku;
}

const SHIPPING_METHODS_OF = statement(
  'orders',
  `SELECT team_code, code, name, active, deleted, country_codes, priority FROM orders.shipping_method WHERE team_code = $1`,
);

interface ShippingMethodRow {
  team_code: string;
  code: string;
  name: string;
  active: boolean;
  deleted: boolean;
  country_codes: string[];
  priority: number;
}

export function shippingMethodsRead(teamCode: string): Read<ShippingMethodFacts[]> {
  return rowsRead(SHIPPING_METHODS_OF([teamCode]), (rows: ShippingMethodRow[]) =>
    rows.map((m) => ({
      teamCode: m.team_code,
      code: m.code,
      name: m.name,
      active: m.active,
      deleted: m.deleted,
      countryCodes: m.country_codes,
      priority: m.priority,
    })),
  );
}

/** What confirming reads of a team: whether it is active, and its shipping methods. */
export interface TeamFacts {
  code: string;
  active: boolean | null;
  shippingMethods: ShippingMethodFacts[];
}

/** teamActiveRead and shippingMethodsRead together. */
export function teamFactsRead(teamCode: string): Read<TeamFacts> {
  const active = teamActiveRead(teamCode);
  const methods = shippingMethodsRead(teamCode);
  return {
    statements: [...active.statements, ...methods.statements],
    answer: ([a, m]) => ({ code: teamCode, active: active.answer([a!]), shippingMethods: methods.answer([m!]) }),
  };
}

export async function findChannel(db: Sql, channelId: string): Promise<{ channelId: string; teamCode: string; channelCode: string; standard: boolean; active: boolean } | null> {
  const { rows } = await db.query<{ channel_id: string; team_code: string; channel_code: string; standard: boolean; active: boolean }>(
    `SELECT channel_id, team_code, channel_code, standard, active FROM orders.channel WHERE channel_id = $1`,
    [channelId],
  );
  const r = rows[0];
  return r ? { channelId: r.channel_id, teamCode: r.team_code, channelCode: r.channel_code, standard: r.standard, active: r.active } : null;
}

export async function standardChannelOf(db: Sql, teamCode: string): Promise<string | null> {
  const { rows } = await db.query<{ channel_id: string }>(`SELECT channel_id FROM orders.channel WHERE team_code = $1 AND standard`, [teamCode]);
  return rows[0]?.channel_id ?? null;
}
