import type { FulfillableStatus } from '../domain/order-state-machine';
import type { StockLine } from '../domain/fulfillability';
import { statement } from '@pf/platform/db/statement';
import type { Sql, Tx } from './order-repository';

/**
 * The stock read model (`orders.stock_figure`), what orders that follow stock need
 * (`orders.stock_demand`), and the queries that derive fulfillable statuses from them, in typed
 * raw SQL on pg: stock events come in bursts (a confirmation of 10 lines sends 10), so each
 * statement handles a whole run of them.
 */

/** One product's figure as an event reported it. */
export interface StockFigureState {
  productUuid: string;
  teamCode: string;
  stock: number;
  changedAt: Date;
}

/** A product whose stored figure changed value: from `previous` (null: not known before) to `stock`. */
export interface FigureChange {
  productUuid: string;
  previous: number | null;
  stock: number;
}

const CLAIM_INBOX_EVENTS = statement(
  'orders',
  `INSERT INTO orders.inbox_event (consumer, event_id) SELECT $1, unnest($2::uuid[])
     ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`,
);

/**
 * Records these events as handled by `consumer` (the inbox, in the caller's transaction) and
 * answers the ids that had not been: only those may be applied.
 */
export async function claimInboxEvents(tx: Sql, consumer: string, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const { rows } = await tx.query<{ event_id: string }>(CLAIM_INBOX_EVENTS([consumer, eventIds]));
  return new Set(rows.map((r) => r.event_id));
}

const APPLY_STOCK_FIGURES = statement(
  'orders',
  `WITH incoming AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[]) AS f(product_uuid, team_code, stock, changed_at)),
     previous AS (
       SELECT s.product_uuid, s.stock FROM orders.stock_figure s WHERE s.product_uuid IN (SELECT product_uuid FROM incoming)),
     written AS (
       INSERT INTO orders.stock_figure AS s (product_uuid, team_code, stock, changed_at)
       SELECT product_uuid, team_code, stock, changed_at FROM incoming
       ON CONFLICT (product_uuid) DO UPDATE SET stock = EXCLUDED.stock, changed_at = EXCLUDED.changed_at
        WHERE s.changed_at <= EXCLUDED.changed_at AND s.team_code = EXCLUDED.team_code
       RETURNING s.product_uuid, s.stock)
     SELECT w.product_uuid::text AS product_uuid, p.stock AS previous, w.stock
       FROM written w LEFT JOIN previous p ON p.product_uuid = w.product_uuid
      WHERE p.stock IS DISTINCT FROM w.stock`,
);

/**
 * Writes the figures (one per product) where they are newer than what is stored (by changedAt; an
 * equal one is applied: stock sends one product's events in order). Answers the products whose
 * stored figure changed value (or became known), with the value before.
 */
export async function applyStockFigures(tx: Sql, figures: readonly StockFigureState[]): Promise<FigureChange[]> {
  if (figures.length === 0) return [];
  const { rows } = await tx.query<{ product_uuid: string; previous: number | null; stock: number }>(
    APPLY_STOCK_FIGURES([figures.map((f) => f.productUuid), figures.map((f) => f.teamCode), figures.map((f) => f.stock), figures.map((f) => f.changedAt)]),
  );
  return rows.map((r) => ({ productUuid: r.product_uuid, previous: r.previous, stock: r.stock }));
}

const RECORD_STOCK_DEMAND = statement(
  'orders',
  `WITH gone AS (
       DELETE FROM orders.stock_demand WHERE order_uuid = $1::uuid AND NOT (product_uuid = ANY($2::uuid[]))),
     kept AS (
       INSERT INTO orders.stock_demand (order_uuid, product_uuid, needed)
       SELECT $1::uuid, d.product_uuid, d.needed FROM unnest($2::uuid[], $3::int[]) AS d(product_uuid, needed)
       ON CONFLICT (order_uuid, product_uuid) DO UPDATE SET needed = EXCLUDED.needed)
     SELECT product_uuid::text AS product_uuid, stock FROM orders.stock_figure WHERE product_uuid = ANY($2::uuid[])`,
);

/**
 * Makes `needs` (product -> quantity) what the order needs while it follows stock (rows of other
 * products go) and answers the known figures of those products, in one statement.
 */
export async function recordStockDemand(tx: Sql, orderUuid: string, needs: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  const products = [...needs.keys()];
  const { rows } = await tx.query<{ product_uuid: string; stock: number }>(RECORD_STOCK_DEMAND([orderUuid, products, products.map((p) => needs.get(p)!)]));
  return new Map(rows.map((r) => [r.product_uuid, r.stock]));
}

const WRITE_STOCK_DEMAND = statement(
  'orders',
  `INSERT INTO orders.stock_demand (order_uuid, product_uuid, needed)
   SELECT $1::uuid, d.product_uuid, d.needed FROM unnest($2::uuid[], $3::int[]) AS d(product_uuid, needed)`,
);

/**
 * What a new order needs of each product, deferred (it has no rows yet, so nothing to replace):
 * its figures were read with the order's first round trip (liveProductsRead).
 */
export function writeNewStockDemand(tx: Tx, orderUuid: string, needs: ReadonlyMap<string, number>): void {
  if (needs.size === 0) return;
  const products = [...needs.keys()];
  tx.defer(WRITE_STOCK_DEMAND([orderUuid, products, products.map((p) => needs.get(p)!)]));
}

const DROP_STOCK_DEMAND = statement('orders', `DELETE FROM orders.stock_demand WHERE order_uuid = ANY($1::uuid[])`);

/** The order no longer follows stock (stock taken, finished): it needs nothing any more. */
export function dropStockDemand(tx: Tx, orderUuids: readonly string[]): void {
  if (orderUuids.length === 0) return;
  tx.defer(DROP_STOCK_DEMAND([orderUuids]));
}

/** Which needs of a product a figure change concerns (`needsAffected`). */
export interface ConcernedNeeds {
  productUuid: string;
  above: number;
  atMost: number | null;
}

/** An order a figure change concerns, with everything it needs and the current figures. */
export interface ConcernedOrder {
  uuid: string;
  fulfillableStatus: FulfillableStatus;
  /** Its needs as lines (one per product); `stock` null when the figure is not known. */
  needs: (StockLine & { stock: number | null })[];
}

const ORDERS_CONCERNED_BY = statement(
  'orders',
  `WITH concerned AS (
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[]) AS c(product_uuid, above, at_most)),
     affected AS (
       SELECT DISTINCT d.order_uuid FROM concerned c
         JOIN orders.stock_demand d ON d.product_uuid = c.product_uuid AND d.needed > c.above AND (c.at_most IS NULL OR d.needed <= c.at_most))
     SELECT o.uuid::text AS uuid, o.fulfillable_status,
            (SELECT json_agg(json_build_object('productUuid', d.product_uuid, 'quantity', d.needed, 'stock', f.stock))
               FROM orders.stock_demand d LEFT JOIN orders.stock_figure f ON f.product_uuid = d.product_uuid
              WHERE d.order_uuid = o.uuid) AS needs
       FROM affected a JOIN orders.orders o ON o.uuid = a.order_uuid
      ORDER BY o.uuid`,
);

/**
 * The orders with a need that these figure changes concern, each with all its needs and their
 * figures, in uuid order. One statement for a whole run; the index on (product, needed) reads
 * only the needs concerned.
 */
export async function ordersConcernedBy(db: Sql, concerned: readonly ConcernedNeeds[]): Promise<ConcernedOrder[]> {
  if (concerned.length === 0) return [];
  const { rows } = await db.query<{ uuid: string; fulfillable_status: FulfillableStatus; needs: { productUuid: string; quantity: number; stock: number | null }[] }>(
    ORDERS_CONCERNED_BY([concerned.map((c) => c.productUuid), concerned.map((c) => c.above), concerned.map((c) => c.atMost)]),
  );
  return rows.map((r) => ({ uuid: r.uuid, fulfillableStatus: r.fulfillable_status, needs: r.needs ?? [] }));
}
