import { randomUUID } from 'node:crypto';
import { ProductCreated, ProductUpdated, type ProductState } from '@pf/platform/events/catalog';
import { outgoing } from '@pf/platform/outbox/outbox';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import {
  ADDRESS,
  backOffice,
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
import { orderInState, REACHABLE, statusOf, type Reachable } from './states';

describe('createOrder (POST /orders): rule O2, O3, O4, reserve, printTrailOrderNumber', () => {
  let s: OrdersSystem;
  let t: TeamFixture;

  beforeAll(async () => {
    s = await startSystem();
    t = await createTeam(s);
  }, 60_000);
  afterAll(async () => s?.close(), 30_000);

  const create = (input: Record<string, unknown>, who = t.shop) => s.gql<any>(s.urls.orders, who, CREATE_ORDER, { input });
  const read = async (uuid: string) => (await s.ok<any>(t.backOffice, ORDER, { uuid })).order;
  const number = () => `o-${uniqueSuffix()}`;

  it('a new order number creates a draft: generated printTrailOrderNumber, fulfillableFrom set, confirmedAt null, order.created', async () => {
    const seq = await s.lastSeq();
    const before = Date.now();
    const n = number();
    const res = await create(orderInput(n, [['SKU-A', 2], ['SKU-B', 1]]));
    expect(res.errors).toBeUndefined();
    const o = res.data.createOrder;
    expect(o).toMatchObject({
      orderNumber: n,
      status: 'draft',
      fulfillableStatus: 'fulfillable',
      scheduledAt: null,
      confirmedAt: null,
      origin: 'api',
      channelId: `${t.teamCode}-shop`,
      stockHeld: false,
      fulfilments: [],
      trackingDetails: [],
      shippingDetails: { ...ADDRESS, companyName: null, address2: null, address3: null, address4: null, state: null, phone: null },
      orderLines: [
        { lineNumber: 1, product: { sku: 'SKU-A', uuid: t.products['SKU-A'] }, quantity: 2 },
        { lineNumber: 2, product: { sku: 'SKU-B', uuid: t.products['SKU-B'] }, quantity: 1 },
      ],
    });
    expect(o.printTrailOrderNumber).toMatch(/^PT-[0-9A-Z]{12}$/);
    expect(Date.parse(o.fulfillableFrom)).toBeGreaterThanOrEqual(before - 5);
    expect(await read(o.uuid)).toEqual(o);
    const events = await s.outboxAfter(seq);
    expect(events.map((e) => [e.envelope.type, e.event_key])).toEqual([['order.created', o.uuid]]);
    expect(events[0]!.envelope.payload.order).toMatchObject({ orderUuid: o.uuid, origin: 'api', channelCode: 'shop', teamCode: t.teamCode, orderNumber: n, status: 'draft', confirmedAt: null });
  });

  describe('rule O2: a replay with an existing order number', () => {
    const expected: Record<Reachable, 'replace' | 'order-already-confirmed' | 'order-not-updatable'> = {
      draft: 'replace',
      'holding-unconfirmed': 'replace',
      queued: 'order-already-confirmed',
      scheduled: 'order-already-confirmed',
      processing: 'order-already-confirmed',
      holding: 'order-already-confirmed',
      'back-order': 'order-already-confirmed',
      error: 'order-already-confirmed',
      complete: 'order-not-updatable',
      cancelled: 'order-not-updatable',
      failed: 'order-not-updatable',
      returned: 'order-not-updatable',
      partial: 'order-not-updatable',
      invalid: 'order-not-updatable',
    };

    it.each(REACHABLE.map((state) => [state, expected[state]]))('existing %s -> %s', async (state, outcome) => {
      const n = number();
      const existing = await orderInState(s, t, state as Reachable, n);
      expect(existing.status).toBe(statusOf(state as Reachable));
      const before = await read(existing.uuid);
      const seq = await s.lastSeq();
      const replay = orderInput(n, [['SKU-B', 3]], { shippingDetails: { ...ADDRESS, city: 'Leeds' } });
      const res = await create(replay);
      if (outcome === 'replace') {
        expect(res.errors).toBeUndefined();
        const o = res.data.createOrder;
        expect(o.uuid).toBe(existing.uuid);
        expect(o).toMatchObject({ status: 'draft', confirmedAt: null, fulfilments: [], orderLines: [{ lineNumber: 1, product: { sku: 'SKU-B' }, quantity: 3 }] });
        expect(o.shippingDetails.city).toBe('Leeds');
        expect(o.printTrailOrderNumber).toBe(before.printTrailOrderNumber);
        const types = (await s.outboxAfter(seq)).map((e) => e.envelope.type);
        expect(types).toEqual(state === 'draft' ? ['order.revised'] : ['order.status-changed', 'order.revised']);
      } else {
        expect(res.errors).toHaveLength(1);
        const problem = res.errors![0]!.extensions!.problem;
        expect(problem).toMatchObject({ problemType: outcome, extensions: { orderUuid: existing.uuid, orderStatus: statusOf(state as Reachable) } });
        // The existing order is unchanged, and nothing was announced.
        expect(await read(existing.uuid)).toEqual(before);
        expect(await s.outboxAfter(seq)).toEqual([]);
      }
    });

    it('the same request again changes nothing: same order, no write, no event', async () => {
      const n = number();
      const first = (await create(orderInput(n))).data.createOrder;
      const seq = await s.lastSeq();
      const again = (await create(orderInput(n))).data.createOrder;
      expect(again).toEqual(first);
      expect(await s.outboxAfter(seq)).toEqual([]);
      // Its version says so too; a change moves it on by one, in the change's answer as in a read.
      const version = async () => (await s.ok<any>(t.backOffice, 'query ($uuid: ID!) { order(uuid: $uuid) { version } }', { uuid: first.uuid })).order.version;
      expect(await version()).toBe(1);
      const changed = await s.ok<any>(t.shop, 'mutation ($input: CreateOrderInput!) { createOrder(input: $input) { version } }', { input: orderInput(n, [['SKU-A', 5]]) });
      expect([changed.createOrder.version, await version()]).toEqual([2, 2]);
    });

    it('an imported or merchant-entered order with the same number is not a replay (rule O1): a new API order', async () => {
      const n = number();
      const imported = await s.ok<any>(t.backOffice, `mutation ($c: ID!, $o: [ImportOrderInput!]!) { importOrders(channelId: $c, orders: $o) { orders { uuid } } }`, {
        c: `${t.teamCode}-shop`,
        o: [orderInput(n)],
      });
      const o = (await create(orderInput(n))).data.createOrder;
      expect(o.uuid).not.toBe(imported.importOrders.orders[0].uuid);
      expect(o.origin).toBe('api');
    });
  });

  describe('printTrailOrderNumber', () => {
    it('is kept when given; another order of the team using it is a plain 409 conflict without orderUuid', async () => {
      const ptn = `PTN-${uniqueSuffix()}`;
      const first = (await create(orderInput(number(), [['SKU-A', 1]], { printTrailOrderNumber: ptn }))).data.createOrder;
      expect(first.printTrailOrderNumber).toBe(ptn);
      const res = await create(orderInput(number(), [['SKU-A', 1]], { printTrailOrderNumber: ptn }), t.other);
      const problem = res.errors![0]!.extensions!.problem;
      expect(problem.problemType).toBe('conflict');
      expect(problem.extensions).toEqual({});
      // Replaying the order that owns it is fine.
      expect((await create(orderInput(first.orderNumber, [['SKU-A', 2]], { printTrailOrderNumber: ptn }))).errors).toBeUndefined();
    });

    it('taken by another order while a replay that asks for it is under way: the same plain 409, never a 500', async () => {
      const [a, b] = [
        (await create(orderInput(number(), [['SKU-A', 1]]))).data.createOrder,
        (await create(orderInput(number(), [['SKU-A', 1]]))).data.createOrder,
      ];
      const ptn = `PTN-${uniqueSuffix()}`;
      // Another change gives b the number and has not committed yet: a's replay does not see it taken.
      const other = await s.pool.connect();
      try {
        await other.query('BEGIN');
        await other.query('UPDATE orders.orders SET print_trail_order_number = $1 WHERE uuid = $2', [ptn, b.uuid]);
        const replay = create(orderInput(a.orderNumber, [['SKU-A', 2]], { printTrailOrderNumber: ptn }));
        // a's replay waits at its COMMIT on the uncommitted number; then the other change commits.
        await eventually(async () => {
          const { rows } = await s.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
          return rows[0].n > 0 || undefined;
        });
        await other.query('COMMIT');
        const problem = (await replay).errors![0]!.extensions!.problem;
        expect(problem.problemType).toBe('conflict');
        expect(problem.extensions).toEqual({});
      } finally {
        other.release();
      }
      expect((await s.ok<any>(t.backOffice, ORDER, { uuid: a.uuid })).order.orderLines.map((l: any) => l.quantity)).toEqual([1]);
    });

    it('a replay refused because its printTrailOrderNumber was taken meanwhile leaves the order as it was: its holds kept, never given to others', async () => {
      // Each round: the order holds all of SKU-A there is; its replay asks for a new printTrailOrderNumber
      // (and SKU-B instead) while new orders take that number and others want SKU-A.
      for (let round = 0; round < 5; round++) {
        const team = await createTeam(s, `p${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 2 }, 'SKU-B': { leeds: 100 } } });
        const base = (await create(orderInput(number(), [['SKU-A', 2]], { reserve: true }), team.shop)).data.createOrder;
        const ptn = `PTN-${uniqueSuffix()}`;
        const answers = await Promise.all([
          create(orderInput(base.orderNumber, [['SKU-B', 1]], { reserve: true, printTrailOrderNumber: ptn }), team.shop),
          ...[0, 1, 2, 3].map((i) => new Promise((r) => setTimeout(r, i * 3)).then(() => create(orderInput(number(), [['SKU-B', 1]], { printTrailOrderNumber: ptn }), team.shop))),
          ...[0, 1, 2, 3, 4, 5].map((i) => new Promise((r) => setTimeout(r, i * 2)).then(() => create(orderInput(number(), [['SKU-A', 1]], { reserve: true }), team.shop))),
        ]);
        for (const a of answers) if (a.errors) expect(['conflict', 'stock-unavailable']).toContain(a.errors[0]!.extensions!.problem.problemType);
        // Exactly one order has the number.
        const { rows: owners } = await s.pool.query('SELECT count(*)::int AS n FROM orders.orders WHERE print_trail_order_number = $1', [ptn]);
        expect(owners[0].n).toBe(1);
        // The order holds what its lines say: the replay's lines if it won, its own two of SKU-A if it was refused.
        const now = (await s.ok<any>(team.backOffice, ORDER, { uuid: base.uuid })).order;
        expect(now.stockHeld).toBe(true);
        expect(await holdsOf(s, base.uuid)).toEqual([{ line_number: 1, quantity: now.orderLines[0].quantity, warehouse_id: expect.any(String) }]);
        const replayRefused = answers[0]!.errors !== undefined;
        expect(now.orderLines.map((l: any) => [l.product.sku, l.quantity])).toEqual(replayRefused ? [['SKU-A', 2]] : [['SKU-B', 1]]);
        const { rows: steps } = await s.pool.query('SELECT count(*)::int AS n FROM orders.stock_step WHERE order_uuid = $1', [base.uuid]);
        expect(steps[0].n).toBe(0);
      }
    }, 120_000);
  });

  describe('reserve: true', () => {
    it('holds stock for every line', async () => {
      const o = (await create(orderInput(number(), [['SKU-A', 3], ['SKU-B', 60]], { reserve: true }))).data.createOrder;
      expect(o.stockHeld).toBe(true);
      const holds = await holdsOf(s, o.uuid);
      expect(holds.reduce((n, h) => n + h.quantity, 0)).toBe(63);
      // A replay without reserve releases them.
      await create(orderInput(o.orderNumber, [['SKU-A', 3], ['SKU-B', 60]]));
      expect(await holdsOf(s, o.uuid)).toEqual([]);
    });

    it('without enough stock: 409 stock-unavailable listing every short SKU, and nothing is created or held', async () => {
      // A team of its own, so no other test's holds change what is available.
      const fresh = await createTeam(s, `r${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 10 }, 'SKU-C': { berlin: 20 }, 'SKU-D': { leeds: 5 } } });
      const n = number();
      const res = await create(orderInput(n, [['SKU-A', 1], ['SKU-C', 21], ['SKU-D', 6]], { reserve: true }), fresh.shop);
      const problem = res.errors![0]!.extensions!.problem;
      expect(problem.problemType).toBe('stock-unavailable');
      expect(problem.extensions.shortSkus).toEqual(
        expect.arrayContaining([
          { sku: 'SKU-C', requested: 21, available: 20 },
          { sku: 'SKU-D', requested: 6, available: 5 },
        ]),
      );
      expect(problem.extensions.shortSkus).toHaveLength(2);
      const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM orders.orders WHERE order_number = $1', [n]);
      expect(rows[0].n).toBe(0);
      const { rows: holds } = await s.pool.query(`SELECT count(*)::int AS n FROM stock.stock_hold WHERE team_code = $1`, [fresh.teamCode]);
      expect(holds[0].n).toBe(0);
    }, 60_000);
  });

  describe('rule O3: strictSkus', () => {
    it('with strictSkus an unmatched SKU refuses the order with 422 naming orderLines[i].product.sku', async () => {
      const res = await create({ ...orderInput(number(), [['SKU-A', 1], ['NOPE', 1], ['sku-a', 1]]), strictSkus: true });
      const problem = res.errors![0]!.extensions!.problem;
      expect(problem.problemType).toBe('validation-failed');
      expect(problem.violations.map((v: { property: string }) => v.property)).toEqual(['orderLines[1].product.sku', 'orderLines[2].product.sku']);
    });

    it('without it the unmatched lines are dropped', async () => {
      const o = (await create(orderInput(number(), [['SKU-A', 1], ['NOPE', 1]]))).data.createOrder;
      expect(o.orderLines).toEqual([{ lineNumber: 1, product: { sku: 'SKU-A', uuid: t.products['SKU-A'] }, quantity: 1 }]);
    });
  });

  describe('rule O4: size limits, each a 422 naming the field', () => {
    const properties = (res: any) => res.errors[0].extensions.problem.violations.map((v: { property: string }) => v.property);

    it('500 lines are accepted; 501 are refused on the count alone', async () => {
      const lines = Array.from({ length: 500 }, (_, i) => ({ lineNumber: i + 1, product: { sku: 'SKU-A' }, quantity: 1 }));
      const ok = await create({ orderNumber: number(), orderLines: lines });
      expect(ok.errors).toBeUndefined();
      expect(ok.data.createOrder.orderLines).toHaveLength(500);
      const tooMany = await create({ orderNumber: number(), orderLines: [...lines, { lineNumber: 501, product: { sku: 'SKU-A' }, quantity: 1 }] });
      expect(tooMany.errors![0]!.extensions!.problem.problemType).toBe('validation-failed');
      expect(properties(tooMany)).toEqual(['orderLines']);
    });

    it('orderNumber, printTrailOrderNumber, sku and shipping details lengths', async () => {
      const lines: [string, number][] = Array.from({ length: 8 }, () => ['SKU-A', 1]);
      lines[7] = ['X'.repeat(256), 1];
      const res = await create({
        ...orderInput('o'.repeat(256), lines),
        printTrailOrderNumber: 'p'.repeat(256),
        shippingDetails: { ...ADDRESS, postalCode: 'P'.repeat(26), companyName: 'C'.repeat(151), state: { name: 'S'.repeat(101), code: 'X'.repeat(31) }, email: `${'e'.repeat(95)}@x.com` },
      });
      expect(properties(res).sort()).toEqual(
        [
          'orderNumber',
          'printTrailOrderNumber',
          'orderLines[7].product.sku',
          'shippingDetails.postalCode',
          'shippingDetails.companyName',
          'shippingDetails.state.name',
          'shippingDetails.state.code',
          'shippingDetails.email',
        ].sort(),
      );
      const atLimit = await create({ ...orderInput('o'.repeat(255)), printTrailOrderNumber: `${uniqueSuffix()}${'p'.repeat(245)}` });
      expect(atLimit.errors).toBeUndefined();
    });
  });

  it('a SKU passing from one product to another matches the product whose catalog state is newer while both still read live', async () => {
    // The catalog created A, deleted it and gave its SKU to B; A's events arrive after B's (other
    // partitions: a read model rebuilt from the start of the topics reads them in any order).
    const sku = `SKU-R-${uniqueSuffix()}`;
    const state = (productUuid: string, version: number, name: string): ProductState => ({
      productUuid,
      teamCode: t.teamCode,
      sku,
      name,
      activeState: 'active',
      podEnabled: false,
      podApproved: false,
      deleted: false,
      version,
    });
    const [a, b] = [randomUUID(), randomUUID()];
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    await s.bus.publish([outgoing(ProductCreated, ProductCreated.create(b, state(b, 1, 'B'), ago(20)))]);
    await eventually(async () => ((await s.pool.query('SELECT 1 FROM orders.product WHERE uuid = $1', [b])).rowCount === 1 ? true : undefined));
    await s.bus.publish([outgoing(ProductCreated, ProductCreated.create(a, state(a, 1, 'A'), ago(60)))]);
    await s.bus.publish([outgoing(ProductUpdated, ProductUpdated.create(a, state(a, 2, 'A renamed'), ago(40)))]);
    await eventually(async () => ((await s.pool.query('SELECT 1 FROM orders.product WHERE uuid = $1 AND version = 2', [a])).rowCount === 1 ? true : undefined));
    const res = await create(orderInput(number(), [[sku, 1]], { strictSkus: true }));
    expect(res.errors).toBeUndefined();
    expect(res.data.createOrder.orderLines.map((l: any) => l.product.uuid)).toEqual([b]);
  });

  it('50 concurrent identical requests create exactly one order and never fail', async () => {
    const n = number();
    const input = orderInput(n, [['SKU-A', 1], ['SKU-B', 2]], { reserve: true });
    const results = await Promise.all(Array.from({ length: 50 }, () => create(input)));
    expect(results.filter((r) => r.errors)).toEqual([]);
    expect(new Set(results.map((r) => r.data.createOrder.uuid)).size).toBe(1);
    const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM orders.orders WHERE order_number = $1', [n]);
    expect(rows[0].n).toBe(1);
    const created = await s.pool.query(
      `SELECT count(*)::int AS n FROM orders.outbox_event WHERE envelope->>'type' = 'order.created' AND event_key = $1`,
      [results[0]!.data.createOrder.uuid],
    );
    expect(created.rows[0].n).toBe(1);
    expect((await holdsOf(s, results[0]!.data.createOrder.uuid)).reduce((q, h) => q + h.quantity, 0)).toBe(3);
  }, 60_000);

  it('an inactive team cannot create orders (403 team-inactive); back-office callers use enterOrder', async () => {
    const other = await createTeam(s, `i${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 1 } } });
    await setTeamActive(s, other.teamCode, false);
    const res = await create(orderInput(number()), other.shop);
    expect(res.errors![0]!.extensions!.problem.problemType).toBe('team-inactive');
    const bo = await create(orderInput(number()), backOffice(t.teamCode));
    expect(bo.errors![0]!.extensions!.problem.problemType).toBe('forbidden');
  }, 60_000);
});
