import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import {
  AMEND_ORDER,
  CANCEL_ORDER,
  CONFIRM_ORDER,
  CREATE_ORDER,
  createTeam,
  holdsOf,
  ORDER,
  orderInput,
  setTeamActive,
  startSystem,
  type OrdersSystem,
  type TeamFixture,
} from './harness';
import { orderInState } from './states';

const COUNTDOWN = 900;

describe('amendOrderLines (PUT .../lines, rule O5)', () => {
  let s: OrdersSystem;
  let t: TeamFixture;

  beforeAll(async () => {
    s = await startSystem({ ordersEnv: { ORDER_COUNTDOWN_SECONDS: String(COUNTDOWN) } });
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const number = () => `o-${uniqueSuffix()}`;
  const lines = (...ls: [number, string, number][]) => ls.map(([lineNumber, sku, quantity]) => ({ lineNumber, product: { sku }, quantity }));
  const amend = (uuid: string, orderLines: unknown[], who = t.shop, url = s.urls.orders) => s.gql<any>(url, who, AMEND_ORDER, { uuid, input: { orderLines } });
  /** An amendment that must fail with exactly one Problem. */
  const amendProblem = (uuid: string, orderLines: unknown[], who = t.shop) => s.problem(who, AMEND_ORDER, { uuid, input: { orderLines } });
  const read = async (uuid: string) => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order;
  const confirmed = async (extra: Record<string, unknown> = {}, code = 'express') => {
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 2], ['SKU-C', 1]], extra) })).createOrder;
    return (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: o.uuid, input: { shippingMethodCode: code } })).confirmOrder;
  };
  const refusalOf = (res: any) => {
    expect(res.errors).toHaveLength(1);
    const p = res.errors[0].extensions.problem;
    expect(p.problemType).toBe('amendment-refused');
    expect(typeof p.extensions.merchantMessage).toBe('string');
    expect(p.detail.length).toBeGreaterThan(0);
    return p;
  };

  it('a queued order: lines changed, fulfilments rebuilt with new uuids, shipping method kept, fresh countdown, only order.revised', async () => {
    const o = await confirmed();
    const seq = await s.lastSeq();
    const before = Date.now();
    // Line 1 up, line 2 removed, line 3 added (SKU-B 60: split over leeds and berlin).
    const res = await amend(o.uuid, lines([1, 'SKU-A', 5], [3, 'SKU-B', 60]));
    expect(res.errors).toBeUndefined();
    const { order, amendment } = res.data.amendOrderLines;
    expect(order).toMatchObject({ uuid: o.uuid, status: 'queued', confirmedAt: o.confirmedAt });
    expect(order.orderLines.map((l: any) => [l.lineNumber, l.product.sku, l.quantity])).toEqual([
      [1, 'SKU-A', 5],
      [3, 'SKU-B', 60],
    ]);
    expect(amendment).toMatchObject({
      addedLines: [{ lineNumber: 3, sku: 'SKU-B', previousSku: null, quantityBefore: null, quantityAfter: 60 }],
      removedLines: [{ lineNumber: 2, sku: 'SKU-C', previousSku: null, quantityBefore: 1, quantityAfter: null }],
      changedLines: [{ lineNumber: 1, sku: 'SKU-A', previousSku: null, quantityBefore: 2, quantityAfter: 5 }],
      unchangedLineNumbers: [],
      countdownRestarted: true,
    });
    const oldUuids = o.fulfilments.map((f: any) => f.uuid);
    for (const f of order.fulfilments) {
      expect(oldUuids).not.toContain(f.uuid);
      expect(f).toMatchObject({ status: 'draft', shippingMethod: { code: 'express', name: 'Express' } });
    }
    const pairs = Object.fromEntries(amendment.replacedFulfilments.map((r: any) => [r.supplierLocation.code, r]));
    const newByCode = Object.fromEntries(order.fulfilments.map((f: any) => [f.supplierLocation.code, f.uuid]));
    const oldByCode = Object.fromEntries(o.fulfilments.map((f: any) => [f.supplierLocation.code, f.uuid]));
    expect(pairs).toEqual({
      leeds: { supplierLocation: { code: 'leeds', countryCode: 'GB' }, previousUuid: oldByCode.leeds, newUuid: newByCode.leeds },
      berlin: { supplierLocation: { code: 'berlin', countryCode: 'DE' }, previousUuid: oldByCode.berlin, newUuid: newByCode.berlin },
    });
    expect(Date.parse(order.fulfillableFrom)).toBeGreaterThanOrEqual(before + COUNTDOWN * 1000 - 5);
    expect(Date.parse(order.fulfillableFrom)).toBeGreaterThan(Date.parse(o.fulfillableFrom));
    expect((await holdsOf(s, o.uuid)).reduce((n, h) => n + h.quantity, 0)).toBe(65);
    // No event that would become a webhook.
    const events = await s.outboxAfter(seq);
    expect(events.map((e) => e.envelope.type)).toEqual(['order.revised']);
    expect(events[0]!.envelope.payload.reason).toBe('amended');
    expect(await read(o.uuid)).toEqual(order);
    const timer = await s.pool.query('SELECT due_at FROM orders.order_timer WHERE order_uuid = $1', [o.uuid]);
    expect(timer.rows[0].due_at.toISOString()).toBe(order.fulfillableFrom);
  });

  it('a draft: lines replaced, no fulfilments to rebuild, no countdown', async () => {
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1]]) })).createOrder;
    const { amendment, order } = (await amend(o.uuid, lines([1, 'SKU-A', 1], [2, 'SKU-D', 2]))).data.amendOrderLines;
    expect(amendment).toMatchObject({ addedLines: [{ lineNumber: 2 }], unchangedLineNumbers: [1], replacedFulfilments: [], countdownRestarted: false });
    expect(order.status).toBe('draft');
    expect(await holdsOf(s, o.uuid)).toEqual([]);
  });

  it('a draft that reserved stock may be left with no lines: what it held is released; a confirmed order may not', async () => {
    const o = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 2]], { reserve: true }) })).createOrder;
    expect((await holdsOf(s, o.uuid)).length).toBeGreaterThan(0);
    const { order } = (await amend(o.uuid, lines([1, 'NO-SUCH-SKU', 1]))).data.amendOrderLines;
    expect(order).toMatchObject({ status: 'draft', orderLines: [], stockHeld: false });
    expect(await holdsOf(s, o.uuid)).toEqual([]);
    const c = await confirmed();
    const refused = refusalOf(await amend(c.uuid, lines([1, 'NO-SUCH-SKU', 1])));
    expect(refused.extensions.reason).toBe('order-not-amendable');
    expect((await read(c.uuid)).orderLines).toHaveLength(2);
  });

  it.each([
    ['', false],
    [', also once an earlier repair has fenced the order in stock (the compensation carries the change\'s token)', true],
  ])('an amendment that does not commit leaves the order holding the very holds it had, where its fulfilments say (not the old lines held anew)%s', async (_title, fencedBefore) => {
    // berlin (lowest code) covers 3; 8 only leeds: the amendment moves the line's hold to leeds.
    const u = await createTeam(s, `u${uniqueSuffix()}`, { stock: { 'SKU-X': { berlin: 5, leeds: 20 } } });
    const o = (await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-X', 3]]) })).createOrder;
    const c = (await s.ok<any>(u.shop, CONFIRM_ORDER, { uuid: o.uuid })).confirmOrder;
    if (fencedBefore) {
      // As a repair of the order does first; every later change's token is above it.
      const fence = (await s.pool.query<{ fence: string }>(`SELECT nextval('orders.stock_fence')::text AS fence`)).rows[0]!.fence;
      await s.call('stock', { kind: 'service', service: 'orders' }, 'mutation ($o: ID!, $f: String!) { fenceOrderHolds(orderUuid: $o, fence: $f) { id } }', { o: o.uuid, f: fence });
    }
    expect(c.fulfilments.map((f: any) => f.supplierLocation.code)).toEqual(['berlin']);
    const placedIds = async () =>
      (await s.pool.query(`SELECT id::text, warehouse_id::text, quantity FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed' ORDER BY id`, [o.uuid])).rows;
    const before = await placedIds();
    expect(before).toEqual([{ id: expect.any(String), warehouse_id: u.warehouses.berlin, quantity: 3 }]);
    // The order change fails at COMMIT, after stock held the new lines (a deferred trigger refuses it).
    const trigger = `fail_${uniqueSuffix().replace(/[^a-z0-9]/gi, '')}`;
    await s.pool.query(`CREATE FUNCTION orders.${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$`);
    await s.pool.query(
      `CREATE CONSTRAINT TRIGGER ${trigger} AFTER UPDATE ON orders.orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.uuid = '${o.uuid}') EXECUTE FUNCTION orders.${trigger}()`,
    );
    try {
      const res = await s.gql<any>(s.urls.orders, u.shop, AMEND_ORDER, { uuid: o.uuid, input: { orderLines: lines([1, 'SKU-X', 8]) } });
      expect(res.errors?.[0]?.extensions?.problem?.extensions?.reason).toBe('unexpected-error');
    } finally {
      await s.pool.query(`DROP TRIGGER ${trigger} ON orders.orders`);
      await s.pool.query(`DROP FUNCTION orders.${trigger}()`);
    }
    const after = (await s.ok<any>(u.backOffice, ORDER, { uuid: o.uuid })).order;
    expect(after.orderLines.map((l: any) => l.quantity)).toEqual([3]);
    expect(after.fulfilments.map((f: any) => [f.uuid, f.supplierLocation.code])).toEqual(c.fulfilments.map((f: any) => [f.uuid, 'berlin']));
    expect(await placedIds()).toEqual(before);
    expect((await s.pool.query('SELECT count(*)::int AS n FROM orders.stock_step WHERE order_uuid = $1', [o.uuid])).rows[0].n).toBe(0);
  });

  it('a change that waited for the order while an amendment failed at COMMIT builds on nothing half undone: it goes through on the stock as committed, the failed change shut out', async () => {
    const u = await createTeam(s, `w${uniqueSuffix()}`, { stock: { 'SKU-X': { berlin: 5, leeds: 20 } } });
    const o = (await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-X', 3]]) })).createOrder;
    await s.ok<any>(u.shop, CONFIRM_ORDER, { uuid: o.uuid });
    // The first COMMIT of an update of this order sleeps (holding the order), then fails; later ones pass.
    const name = `fail_${uniqueSuffix().replace(/[^a-z0-9]/gi, '')}`;
    await s.pool.query(`CREATE SEQUENCE orders.${name}`);
    await s.pool.query(
      `CREATE FUNCTION orders.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF nextval('orders.${name}') = 1 THEN PERFORM pg_sleep(0.8); RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$`,
    );
    await s.pool.query(
      `CREATE CONSTRAINT TRIGGER ${name} AFTER UPDATE ON orders.orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.uuid = '${o.uuid}') EXECUTE FUNCTION orders.${name}()`,
    );
    let early: any;
    try {
      const amendment = s.gql<any>(s.urls.orders, u.shop, AMEND_ORDER, { uuid: o.uuid, input: { orderLines: lines([1, 'SKU-X', 8]) } });
      // Sent while the amendment sleeps in its COMMIT: the cancellation waits for the order; then
      // either the failed amendment undoes its steps first, or the cancellation finds its journal
      // row, fences it out in stock and puts the order's stock right before it goes on.
      await new Promise((r) => setTimeout(r, 300));
      early = await s.gql<any>(s.urls.orders, u.shop, CANCEL_ORDER, { uuid: o.uuid });
      expect((await amendment).errors?.[0]?.extensions?.problem?.extensions?.reason).toBe('unexpected-error');
    } finally {
      await s.pool.query(`DROP TRIGGER ${name} ON orders.orders`);
      await s.pool.query(`DROP FUNCTION orders.${name}()`);
      await s.pool.query(`DROP SEQUENCE orders.${name}`);
    }
    expect(early.errors).toBeUndefined();
    expect(early.data.cancelOrder).toMatchObject({ status: 'cancelled', stockHeld: false });
    // Whichever came first, the order holds nothing and the journal is clear.
    await eventually(async () => ((await s.pool.query('SELECT count(*)::int AS n FROM orders.stock_step WHERE order_uuid = $1', [o.uuid])).rows[0].n === 0) || undefined);
    expect((await s.pool.query(`SELECT warehouse_id::text, quantity FROM stock.stock_hold WHERE order_uuid = $1 AND status = 'placed'`, [o.uuid])).rows).toEqual([]);
  });

  it('a scheduled order keeps its time', async () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const o = await confirmed({ scheduledAt: at });
    const { order, amendment } = (await amend(o.uuid, lines([1, 'SKU-A', 3], [2, 'SKU-C', 1]))).data.amendOrderLines;
    expect(order).toMatchObject({ status: 'scheduled', fulfillableFrom: at, scheduledAt: at });
    expect(amendment.countdownRestarted).toBe(false);
  });

  it('the same lines again are an amendment: fulfilments rebuilt with new uuids, a fresh countdown, the same holds', async () => {
    const o = await confirmed();
    const holds = (await holdsOf(s, o.uuid)).map((h) => [h.line_number, h.warehouse_id, h.quantity]);
    const seq = await s.lastSeq();
    const same = o.orderLines.map((l: any) => ({ lineNumber: l.lineNumber, product: { sku: l.product.sku }, quantity: l.quantity }));
    const res = await amend(o.uuid, same);
    expect(res.errors).toBeUndefined();
    const { order, amendment } = res.data.amendOrderLines;
    expect(amendment).toMatchObject({ addedLines: [], removedLines: [], changedLines: [], unchangedLineNumbers: [1, 2], countdownRestarted: true });
    expect(order.orderLines).toEqual(o.orderLines);
    expect(order.fulfilments).toHaveLength(o.fulfilments.length);
    const oldUuids = o.fulfilments.map((f: any) => f.uuid);
    for (const f of order.fulfilments) expect(oldUuids).not.toContain(f.uuid);
    expect(amendment.replacedFulfilments.map((r: any) => r.previousUuid).sort()).toEqual([...oldUuids].sort());
    expect(Date.parse(order.fulfillableFrom)).toBeGreaterThan(Date.parse(o.fulfillableFrom));
    expect((await holdsOf(s, o.uuid)).map((h) => [h.line_number, h.warehouse_id, h.quantity])).toEqual(holds);
    expect((await s.outboxAfter(seq)).map((e) => e.envelope.type)).toEqual(['order.revised']);
  });

  describe('refusals, each with its reason, merchantMessage and detail; the order unchanged', () => {
    it('fulfilment-underway once a fulfilment reached a supplier', async () => {
      const p = await orderInState(s, t, 'processing', number());
      const before = await read(p.uuid);
      expect(refusalOf(await amend(p.uuid, lines([1, 'SKU-A', 9]))).extensions.reason).toBe('fulfilment-underway');
      expect(await read(p.uuid)).toEqual(before);
    });

    it('fulfilment-underway for a queued order whose fulfillableFrom came before its timer ran', async () => {
      const o = await confirmed();
      // The countdown's end as the order tells it, passed; the timer (due with the countdown) has not run.
      await s.pool.query(`UPDATE orders.orders SET fulfillable_from = now() - interval '1 second' WHERE uuid = $1`, [o.uuid]);
      const before = await read(o.uuid);
      expect(before.status).toBe('queued');
      const refusal = refusalOf(await amend(o.uuid, lines([1, 'SKU-A', 1])));
      expect(refusal.extensions.reason).toBe('fulfilment-underway');
      expect(refusal.detail).toContain(before.fulfillableFrom);
      expect(await read(o.uuid)).toEqual(before);
    });

    it('stock-held when the wanted lines cannot be held; the old holds stay', async () => {
      const o = await confirmed();
      const holds = await holdsOf(s, o.uuid);
      const p = refusalOf(await amend(o.uuid, lines([1, 'SKU-A', 2], [2, 'SKU-C', 1], [3, 'SKU-D', 6])));
      expect(p.extensions).toMatchObject({ reason: 'stock-held', shortSkus: [{ sku: 'SKU-D', requested: 6, available: 5 }] });
      expect(await read(o.uuid)).toEqual(o);
      expect(await holdsOf(s, o.uuid)).toEqual(holds);
    });

    it('being-rebuilt while another change holds the order', async () => {
      const o = await confirmed();
      const blocker = await s.pool.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM orders.orders WHERE uuid = $1 FOR UPDATE', [o.uuid]);
        expect(refusalOf(await amend(o.uuid, lines([1, 'SKU-A', 3]))).extensions.reason).toBe('being-rebuilt');
      } finally {
        await blocker.query('ROLLBACK');
        blocker.release();
      }
      expect(await read(o.uuid)).toEqual(o);
    });

    it('unexpected-error when the stock service cannot be reached (worth retrying)', async () => {
      const o = await confirmed();
      // A replica of the orders service whose stock service is down.
      const cut = await s.startOrders({ STOCK_URL: 'http://127.0.0.1:9/graphql', STOCK_TIMEOUT_MS: '2000' }, { start: false });
      try {
        const p = refusalOf(await amend(o.uuid, lines([1, 'SKU-A', 3]), t.shop, cut.url));
        expect(p.extensions.reason).toBe('unexpected-error');
        // Nothing left: the request never reached stock.
        expect(p.detail).toBe('The stock service could not be reached; nothing was changed.');
      } finally {
        await cut.stop();
      }
      expect(await read(o.uuid)).toEqual(o);
    });

    it('order-not-amendable for orders never amended (cancelled, holding) although nothing was sent', async () => {
      for (const state of ['cancelled', 'holding', 'holding-unconfirmed'] as const) {
        const o = await orderInState(s, t, state, number());
        expect(refusalOf(await amend(o.uuid, lines([1, 'SKU-A', 3]))).extensions.reason).toBe('order-not-amendable');
        // The lines it has are refused too: the state is judged before the lines.
        const same = o.orderLines.map((l: any) => ({ lineNumber: l.lineNumber, product: { sku: l.product.sku }, quantity: l.quantity }));
        expect(refusalOf(await amend(o.uuid, same)).extensions.reason).toBe('order-not-amendable');
      }
    });
  });

  it('validates the lines (O4, line numbers required) and refuses an inactive team', async () => {
    const o = await confirmed();
    const invalid = await amendProblem(o.uuid, [{ product: { sku: 'SKU-A' }, quantity: 1 }, { lineNumber: 2, product: { sku: 'x'.repeat(256) }, quantity: 1 }]);
    expect(invalid.violations?.map((v) => v.property)).toEqual(['orderLines[0].lineNumber', 'orderLines[1].product.sku']);
    const many = Array.from({ length: 501 }, (_, i) => ({ lineNumber: i + 1, product: { sku: 'SKU-A' }, quantity: 1 }));
    expect((await amendProblem(o.uuid, many)).violations).toEqual([{ property: 'orderLines', message: expect.any(String) }]);
    const u = await createTeam(s, `i${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 10 } } });
    const d = (await s.ok<any>(u.shop, CREATE_ORDER, { input: orderInput(number(), [['SKU-A', 1]]) })).createOrder;
    await setTeamActive(s, u.teamCode, false);
    expect((await amendProblem(d.uuid, lines([1, 'SKU-A', 2]), u.shop)).problemType).toBe('team-inactive');
  }, 60_000);
});
