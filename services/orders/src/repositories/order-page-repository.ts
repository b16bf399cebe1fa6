import { prepared } from '@pf/platform/db/statement';
import { inPgTransaction, rowsRead } from '@pf/platform/db/transaction';
import type pg from 'pg';
import type { Order } from '../domain/model';
import { loadOrders } from './order-repository';

/** Which orders a page is taken from: every criterion present must hold (AND). */
export interface OrderCriteria {
  teamCode?: string;
  channelId?: string;
  origin?: string;
  statuses?: readonly string[];
  orderNumber?: string;
  updatedSince?: Date;
  createdSince?: Date;
  /** After this order in `updated-asc` order. */
  updatedAfter?: { at: Date; uuid: string };
  fulfillableStatuses?: readonly string[];
  confirmed?: boolean;
}

export type OrderPageOrder = 'created-desc' | 'updated-asc';

/** The WHERE clause of the criteria and its values (`$1`, `$2`, ... in order). */
export function criteriaSql(criteria: OrderCriteria): { where: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions: string[] = [];
  const is = (column: string, value: unknown) => {
    values.push(value);
    conditions.push(`${column} = $${values.length}`);
  };
  const anyOf = (column: string, list: readonly string[]) => {
    values.push(list);
    conditions.push(`${column} = ANY($${values.length}::text[])`);
  };
  const since = (column: string, at: Date) => {
    values.push(at);
    conditions.push(`${column} >= $${values.length}::timestamptz`);
  };
  if (criteria.teamCode !== undefined) is('team_code', criteria.teamCode);
  if (criteria.channelId !== undefined) is('channel_id', criteria.channelId);
  if (criteria.origin !== undefined) is('origin', criteria.origin);
  if (criteria.statuses?.length) anyOf('status', criteria.statuses);
  if (criteria.orderNumber !== undefined) is('order_number', criteria.orderNumber);
  if (criteria.updatedSince) since('updated_at', criteria.updatedSince);
  if (criteria.createdSince) since('created_at', criteria.createdSince);
  if (criteria.updatedAfter) {
    values.push(criteria.updatedAfter.at, criteria.updatedAfter.uuid);
    conditions.push(`(updated_at, uuid) > ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  if (criteria.fulfillableStatuses?.length) anyOf('fulfillable_status', criteria.fulfillableStatuses);
  if (criteria.confirmed !== undefined) conditions.push(criteria.confirmed ? 'confirmed_at IS NOT NULL' : 'confirmed_at IS NULL');
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

const ORDER_BY: Record<OrderPageOrder, string> = {
  'created-desc': 'created_at DESC, uuid DESC',
  'updated-asc': 'updated_at ASC, uuid ASC',
};

/**
 * How many orders meet the criteria, and those of one page, loaded whole: all three reads in one
 * REPEATABLE READ snapshot, so that a page's orders meet its criteria and agree with its count
 * while orders change (read one after the other, an order queued and saved as draft meanwhile
 * showed up as a draft on a `status=queued` page, with `total` 1 and two orders).
 */
export function readOrderPage(
  pool: pg.Pool,
  criteria: OrderCriteria,
  order: OrderPageOrder,
  offset: number,
  limit: number,
): Promise<{ total: number; orders: Order[] }> {
  const { where, values } = criteriaSql(criteria);
  const count = prepared('orders', `SELECT count(*)::int AS total FROM orders.orders ${where}`, values);
  const page = prepared(
    'orders',
    `SELECT uuid FROM orders.orders ${where} ORDER BY ${ORDER_BY[order]} OFFSET $${values.length + 1} LIMIT $${values.length + 2}`,
    [...values, offset, limit],
  );
  return inPgTransaction(pool, async (tx) => {
    // Goes out with BEGIN and the two reads, in one round trip.
    tx.defer({ text: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY' });
    const [total, uuids] = await tx.reads<[number, string[]]>([
      rowsRead(count, (rows: { total: number }[]) => rows[0]!.total),
      rowsRead(page, (rows: { uuid: string }[]) => rows.map((row) => row.uuid)),
    ]);
    return { total, orders: await loadOrders(tx, uuids) };
  });
}
