import type { OrdersSystem, TeamFixture } from './harness';
import { PROGRESS } from './harness';
import type { TestOrder } from './states';

/** The stock-levels feed (GET /stock-levels) of the team, per SKU. */
export async function figures(s: OrdersSystem, t: TeamFixture): Promise<Record<string, number>> {
  const { stockLevels } = await s.call<any>('stock', t.shop, `{ stockLevels(first: 100) { items { sku stock } } }`);
  return Object.fromEntries(stockLevels.items.map((i: any) => [i.sku, i.stock]));
}

/** `stock` with `taken` subtracted per key. */
export const less = (stock: Record<string, number>, taken: Record<string, number>) =>
  Object.fromEntries(Object.entries(stock).map(([k, v]) => [k, v - (taken[k] ?? 0)]));

/** The supplier's progress on the order's fulfilment at this location, as the back-office records it. */
export async function progressAt(s: OrdersSystem, t: TeamFixture, order: TestOrder, code: string, status: string): Promise<TestOrder> {
  const f = order.fulfilments.find((x: any) => x.supplierLocation.code === code)!;
  return (await s.ok<any>(t.backOffice, PROGRESS, { fulfilmentUuid: f.uuid, input: { status } })).recordFulfilmentProgress as TestOrder;
}

/** The last event seq of stock's outbox. */
export async function stockOutboxSeq(s: OrdersSystem): Promise<number> {
  return Number((await s.pool.query('SELECT coalesce(max(seq), 0) AS seq FROM stock.outbox_event')).rows[0].seq);
}

/**
 * Runs `run` while the orders service's write of this order with this status fails (as a crash or
 * a lost connection after the stock step would): the change does not commit.
 */
export async function refusingOrderWrites<R>(s: OrdersSystem, uuid: string, status: string, run: () => Promise<R>): Promise<R> {
  await s.pool.query(`CREATE OR REPLACE FUNCTION orders.test_refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.uuid = '${uuid}'::uuid AND NEW.status = '${status}' THEN RAISE EXCEPTION 'test: this change does not commit'; END IF;
      RETURN NEW;
    END $$`);
  await s.pool.query(`CREATE TRIGGER test_refuse_write BEFORE UPDATE ON orders.orders FOR EACH ROW EXECUTE FUNCTION orders.test_refuse_write()`);
  try {
    return await run();
  } finally {
    await s.pool.query('DROP TRIGGER test_refuse_write ON orders.orders');
    await s.pool.query('DROP FUNCTION orders.test_refuse_write()');
  }
}
