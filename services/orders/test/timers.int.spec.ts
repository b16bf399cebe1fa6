import { metricsRegistry } from '@pf/platform/metrics';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import {
  CANCEL_ORDER,
  CONFIRM_ORDER,
  CREATE_ORDER,
  createTeam,
  holdsOf,
  ORDER,
  orderInput,
  startSystem,
  type OrdersInstance,
  type OrdersSystem,
  type TeamFixture,
} from './harness';

/**
 * Durable timers (principle 3). The orders process serving the API here polls its timers only
 * once, at start; each test starts the worker replicas it needs, so it decides who runs them.
 */
describe('durable timers: countdowns and schedules', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  const workers: OrdersInstance[] = [];

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: '1', ORDERS_TIMER_POLL_MS: '600000' } });
    t = await createTeam(s, undefined, { stock: { 'SKU-A': { leeds: 1000 }, 'SKU-C': { berlin: 1000 } } });
  }, 60_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
  });
  afterAll(async () => s?.close(), 30_000);

  const worker = async (env: Record<string, string> = {}) => {
    const w = await s.startOrders({ ORDER_COUNTDOWN_SECONDS: '1', ORDERS_TIMER_POLL_MS: '50', ORDERS_TIMER_LEASE_MS: '2000', ...env });
    workers.push(w);
    return w;
  };
  const number = () => `o-${uniqueSuffix()}`;
  const confirmed = async (extra: Record<string, unknown> = {}) => {
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 2], ['SKU-C', 1]], extra) })).createOrder;
    return (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: o.uuid })).confirmOrder;
  };
  const read = async (uuid: string) => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order;
  const history = async (uuid: string) =>
    (await s.pool.query('SELECT from_status, to_status, at, actor, trigger FROM orders.order_status_change WHERE order_uuid = $1 ORDER BY id', [uuid])).rows;
  const processed = (uuid: string) => eventually(async () => ((await read(uuid)).status === 'processing' ? read(uuid) : undefined), 20_000);

  it('a queued order goes to processing when its countdown ends: fulfilments sent, holds consumed', async () => {
    await worker();
    const o = await confirmed();
    expect(o.status).toBe('queued');
    const seq = await s.lastSeq();
    const p = await processed(o.uuid);
    expect(p.fulfilments.map((f: any) => f.status)).toEqual(['processing', 'processing']);
    expect(p.confirmedAt).toBe(o.confirmedAt);
    expect(p.stockHeld).toBe(false);
    expect(await holdsOf(s, o.uuid)).toEqual([]);
    expect((await holdsOf(s, o.uuid, 'consumed')).length).toBe(2);
    const moved = (await history(o.uuid)).at(-1);
    expect(moved).toMatchObject({ from_status: 'queued', to_status: 'processing', actor: 'timer', trigger: 'countdown-ended' });
    expect(moved.at.getTime()).toBeGreaterThanOrEqual(Date.parse(o.fulfillableFrom));
    const events = await eventually(async () => {
      const rows = await s.outboxAfter(seq);
      return rows.length >= 3 ? rows : undefined;
    });
    expect(events.map((e) => e.envelope.type).sort()).toEqual(['fulfilment.status-changed', 'fulfilment.status-changed', 'order.status-changed']);
    const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM orders.order_timer WHERE order_uuid = $1', [o.uuid]);
    expect(rows[0].n).toBe(0);
  }, 30_000);

  it('a scheduled order goes to processing at scheduledAt', async () => {
    await worker();
    const at = new Date(Date.now() + 1500);
    const o = await confirmed({ scheduledAt: at.toISOString() });
    expect(o).toMatchObject({ status: 'scheduled', fulfillableFrom: at.toISOString() });
    await processed(o.uuid);
    const moved = (await history(o.uuid)).at(-1);
    expect(moved).toMatchObject({ from_status: 'scheduled', to_status: 'processing', trigger: 'schedule-due' });
    expect(moved.at.getTime()).toBeGreaterThanOrEqual(at.getTime());
  }, 30_000);

  it('survives a restart: a timer due while no process ran, and one claimed by a process that died, are both carried out', async () => {
    const waiting = await confirmed();
    const claimed = await confirmed();
    // A worker that claimed this one and died: its lease runs out in 1 s.
    await s.pool.query(`UPDATE orders.order_timer SET claimed_by = 'dead-replica', claimed_until = now() + interval '1 second' WHERE order_uuid = $1`, [claimed.uuid]);
    await eventually(async () => {
      const { rows } = await s.pool.query('SELECT bool_and(due_at < now()) AS due FROM orders.order_timer WHERE order_uuid = ANY($1)', [[waiting.uuid, claimed.uuid]]);
      return rows[0].due ? true : undefined;
    });
    expect((await read(waiting.uuid)).status).toBe('queued');
    // The restarted process.
    await worker();
    await processed(waiting.uuid);
    await processed(claimed.uuid);
  }, 30_000);

  it('an order whose timer is over a minute past due is counted overdue at each scrape until it is sent', async () => {
    const overdue = async () => Number(/^pf_order_timers_overdue\{schema="orders"\} (\d+)$/m.exec(await metricsRegistry.metrics())?.[1]);
    const late = await confirmed();
    await s.pool.query(`UPDATE orders.order_timer SET due_at = now() - interval '2 minutes' WHERE order_uuid = $1`, [late.uuid]);
    expect(await overdue()).toBeGreaterThanOrEqual(1);
    await worker();
    await processed(late.uuid);
    expect(await overdue()).toBe(0);
  }, 30_000);

  it('two replicas running side by side move each order exactly once', async () => {
    await worker();
    await worker();
    const orders = [];
    for (let i = 0; i < 12; i++) orders.push(await confirmed());
    for (const o of orders) await processed(o.uuid);
    const uuids = orders.map((o) => o.uuid);
    const moves = await s.pool.query(
      `SELECT order_uuid, count(*)::int AS n FROM orders.order_status_change WHERE order_uuid = ANY($1) AND to_status = 'processing' GROUP BY 1`,
      [uuids],
    );
    expect(moves.rows.map((r) => r.n)).toEqual(uuids.map(() => 1));
    const events = await s.pool.query(
      `SELECT count(*)::int AS n FROM orders.outbox_event WHERE event_key = ANY($1) AND envelope->>'type' = 'order.status-changed' AND envelope->'payload'->>'currentStatus' = 'processing'`,
      [uuids],
    );
    expect(events.rows[0].n).toBe(12);
    const consumed = await s.pool.query(`SELECT count(*)::int AS n FROM stock.stock_adjustment WHERE kind = 'consume' AND reason LIKE ANY($1)`, [uuids.map((u) => `Order ${u} %`)]);
    expect(consumed.rows[0].n).toBe(24);
  }, 60_000);

  it('an order cancelled before its countdown ends never moves', async () => {
    const o = await confirmed();
    await s.ok(t.shop, CANCEL_ORDER, { uuid: o.uuid });
    const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM orders.order_timer WHERE order_uuid = $1', [o.uuid]);
    expect(rows[0].n).toBe(0);
    await worker();
    const marker = await confirmed();
    await processed(marker.uuid);
    expect((await read(o.uuid)).status).toBe('cancelled');
  }, 30_000);

  it('a move that keeps failing is retried, then the order could not be sent: holding with confirmedAt kept', async () => {
    const o = await confirmed();
    // A lasting refusal: the database will not take this order's fulfilments as sent.
    const constraint = `timer_test_${uniqueSuffix().replace(/\W/g, '_')}`;
    await s.pool.query(`ALTER TABLE orders.fulfilment ADD CONSTRAINT ${constraint} CHECK (status <> 'processing' OR order_uuid <> '${o.uuid}'::uuid)`);
    try {
      await worker({ ORDERS_TIMER_MAX_ATTEMPTS: '3', ORDERS_TIMER_LEASE_MS: '300' });
      const e = await eventually(async () => ((await read(o.uuid)).status === 'holding' ? read(o.uuid) : undefined), 20_000);
      expect(e.confirmedAt).toBe(o.confirmedAt);
      const last = (await history(o.uuid)).at(-1);
      expect(last).toMatchObject({ from_status: 'queued', to_status: 'holding', trigger: 'processing-failed', actor: 'timer' });
      const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM orders.order_timer WHERE order_uuid = $1', [o.uuid]);
      expect(rows[0].n).toBe(0);
    } finally {
      await s.pool.query(`ALTER TABLE orders.fulfilment DROP CONSTRAINT ${constraint}`);
    }
  }, 30_000);

  it('a stock service that answers the same unexpected error every time is no outage: the attempts count and the order could not be sent', async () => {
    const o = await confirmed();
    // A lasting failure inside stock (its bug, as far as orders can tell): it will not consume this order's holds.
    const constraint = `timer_stock_${uniqueSuffix().replace(/\W/g, '_')}`;
    await s.pool.query(`ALTER TABLE stock.stock_hold ADD CONSTRAINT ${constraint} CHECK (status <> 'consumed' OR order_uuid <> '${o.uuid}'::uuid)`);
    try {
      await worker({ ORDERS_TIMER_MAX_ATTEMPTS: '3', ORDERS_TIMER_LEASE_MS: '300' });
      const e = await eventually(async () => ((await read(o.uuid)).status === 'holding' ? read(o.uuid) : undefined), 20_000);
      expect(e.confirmedAt).toBe(o.confirmedAt);
      expect((await history(o.uuid)).at(-1)).toMatchObject({ from_status: 'queued', to_status: 'holding', trigger: 'processing-failed', actor: 'timer' });
    } finally {
      await s.pool.query(`ALTER TABLE stock.stock_hold DROP CONSTRAINT ${constraint}`);
    }
    // Nothing was consumed for it: the order still holds its stock for the merchant to send again.
    const { rows } = await s.pool.query(`SELECT status, count(*)::int AS n FROM stock.stock_hold WHERE order_uuid = $1 GROUP BY status ORDER BY status`, [o.uuid]);
    expect(rows.filter((r) => r.status === 'consumed')).toEqual([]);
  }, 30_000);

  it('a stock service out of reach is waited out and counts for none of the attempts: the order stays queued and is sent once stock answers', async () => {
    const o = await confirmed();
    const cut = await worker({ STOCK_URL: 'http://127.0.0.1:9/graphql', STOCK_TIMEOUT_MS: '500', ORDERS_TIMER_MAX_ATTEMPTS: '2', ORDERS_TIMER_LEASE_MS: '300' });
    const timer = async () => (await s.pool.query('SELECT attempts, last_error FROM orders.order_timer WHERE order_uuid = $1', [o.uuid])).rows[0];
    await eventually(async () => ((await timer())?.last_error ? true : undefined), 20_000);
    // Retried every 300 ms at most meanwhile: an outage is no attempt, so a real failure after it
    // is retried as the first one would be rather than putting the order on hold at once.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await timer()).attempts).toBeLessThanOrEqual(1);
    expect((await read(o.uuid)).status).toBe('queued');
    await cut.stop();
    await worker();
    const p = await processed(o.uuid);
    expect(p.confirmedAt).toBe(o.confirmedAt);
  }, 40_000);
});
