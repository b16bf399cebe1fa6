import type { FulfillableStatus } from '../domain/order-state-machine';
import { STOCK_DERIVED_STATUSES, type StockLine } from '../domain/fulfillability';
import type { Sql } from './order-repository';

/**
 * The stock read model (`orders.stock_figure`) and the queries that derive fulfillable statuses
 * from it, in typed raw SQL on pg: stock events come in bursts (a confirmation of 10 lines sends
 * 10), so each statement handles a whole run of them.
 */

/** One product's figure as an event reported it. */
export interface StockFigureState {
  productUuid: string;
  teamCode: string;
  stock: number;
  changedAt: Date;
}

/**
 * Records these events as handled by `consumer` (the inbox, in the caller's transaction) and
 * answers the ids that had not been: only those may be applied.
 */
export async function claimInboxEvents(tx: Sql, consumer: string, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const { rows } = await tx.query<{ event_id: string }>(
    `INSERT INTO orders.inbox_event (consumer, event_id) SELECT $1, unnest($2::uuid[])
     ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`,
    [consumer, eventIds],
  );
  return new Set(rows.map((r) => r.event_id));
}

/**
 * Writes the figures (one per product) where they are newer than what is stored (by changedAt; an
 * equal one is applied: stock sends one product's events in order). Answers the products whose
 * stored figure changed value (or became known).
 */
export async function applyStockFigures(tx: Sql, figures: readonly StockFigureState[]): Promise<{ productUuid: string; teamCode: string }[]> {
  if (figures.length === 0) return [];
  const { rows } = await tx.query<{ product_uuid: string; team_code: string }>(
    `WITH incoming AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[]) AS f(product_uuid, team_code, stock, changed_at)),
     previous AS (
       SELECT s.product_uuid, s.stock FROM orders.stock_figure s WHERE s.product_uuid IN (SELECT product_uuid FROM incoming)),
     written AS (
       INSERT INTO orders.stock_figure AS s (product_uuid, team_code, stock, changed_at)
       SELECT product_uuid, team_code, stock, changed_at FROM incoming
       ON CONFLICT (product_uuid) DO UPDATE SET stock = EXCLUDED.stock, changed_at = EXCLUDED.changed_at
        WHERE s.changed_at <= EXCLUDED.changed_at AND s.team_code = EXCLUDED.team_code
       RETURNING s.product_uuid, s.team_code, s.stock)
     SELECT w.product_uuid::text AS product_uuid, w.team_code
       FROM written w LEFT JOIN previous p ON p.product_uuid = w.product_uuid
      WHERE p.stock IS DISTINCT FROM w.stock`,
    [figures.map((f) => f.productUuid), figures.map((f) => f.teamCode), figures.map((f) => f.stock), figures.map((f) => f.changedAt)],
  );
  return rows.map((r) => ({ productUuid: r.product_uuid, teamCode: r.team_code }));
}

/** The known figures of these products (a product without one is absent). */
export async function stockFiguresOf(db: Sql, productUuids: readonly string[]): Promise<Map<string, number>> {
  const uuids = [...new Set(productUuids)];
  if (uuids.length === 0) return new Map();
  const { rows } = await db.query<{ product_uuid: string; stock: number }>(
    `SELECT product_uuid::text AS product_uuid, stock FROM orders.stock_figure WHERE product_uuid = ANY($1::uuid[])`,
    [uuids],
  );
  return new Map(rows.map((r) => [r.product_uuid, r.stock]));
}

/** An order whose fulfillable status follows stock, with what the rule needs. */
export interface StockDerivedOrder {
  uuid: string;
  fulfillableStatus: FulfillableStatus;
  lines: StockLine[];
}

const DERIVED_STATUSES_SQL = STOCK_DERIVED_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * The orders of these teams whose fulfillable status follows stock (no stock held, nothing sent,
 * see `derivesFromStock`) and that have a line on one of these products, with their matched lines.
 * One statement for a whole run of stock changes; `orders_stock_derived_idx` serves the filter.
 */
export async function stockDerivedOrdersOn(db: Sql, teamCodes: readonly string[], productUuids: readonly string[]): Promise<StockDerivedOrder[]> {
  if (productUuids.length === 0) return [];
  const { rows } = await db.query<{ uuid: string; fulfillable_status: FulfillableStatus; lines: StockLine[] }>(
    `SELECT o.uuid::text AS uuid, o.fulfillable_status,
            (SELECT json_agg(json_build_object('productUuid', l.product_uuid, 'quantity', l.quantity))
               FROM orders.order_line l WHERE l.order_uuid = o.uuid AND l.product_uuid IS NOT NULL) AS lines
       FROM orders.orders o
      WHERE o.team_code = ANY($1::text[])
        AND NOT o.stock_held AND o.status IN (${DERIVED_STATUSES_SQL})
        AND EXISTS (SELECT 1 FROM orders.order_line l WHERE l.order_uuid = o.uuid AND l.product_uuid = ANY($2::uuid[]))
        AND NOT EXISTS (SELECT 1 FROM orders.fulfilment f WHERE f.order_uuid = o.uuid AND f.status <> 'draft')
      ORDER BY o.uuid`,
    [[...new Set(teamCodes)], [...new Set(productUuids)]],
  );
  return rows.map((r) => ({ uuid: r.uuid, fulfillableStatus: r.fulfillable_status, lines: r.lines ?? [] }));
}
