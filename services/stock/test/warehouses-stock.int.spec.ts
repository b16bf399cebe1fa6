import { StockLevelChanged } from '@pf/platform/events/stock';
import { TOPICS } from '@pf/platform/events/topics';
import {
  ADJUST_STOCK,
  backOffice,
  CREATE_WAREHOUSE,
  figureEventsAfter,
  lastOutboxSeq,
  ordersService,
  outboxAfter,
  PRODUCT_STOCK,
  SET_STOCK,
  setStock,
  startStock,
  UPDATE_WAREHOUSE,
  warehouse,
  type OutboxRow,
  type StockHarness,
} from './harness';

/** A stock-level.changed row's payload, checked against the event's schema. */
const figureChangeIn = (row: OutboxRow) => StockLevelChanged.payload.parse(row.envelope.payload);

describe('warehouses and stock (back-office)', () => {
  let h: StockHarness;
  const team = 'wh';

  beforeAll(async () => {
    h = await startStock();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('creates, lists and updates warehouses; codes are unique per team', async () => {
    const { createWarehouse } = await h.ok(backOffice(team), CREATE_WAREHOUSE, { input: { code: 'leeds', name: ' Leeds ', countryCode: 'GB' } });
    expect(createWarehouse).toMatchObject({ code: 'leeds', name: 'Leeds', countryCode: 'GB', enabled: true });
    expect(await h.problem(backOffice(team), CREATE_WAREHOUSE, { input: { code: 'leeds', name: 'Again', countryCode: 'GB' } })).toMatchObject({ problemType: 'conflict' });
    // Another team may use the same code.
    await h.ok(backOffice('otherwh'), CREATE_WAREHOUSE, { input: { code: 'leeds', name: 'Theirs', countryCode: 'FR' } });
    const { updateWarehouse } = await h.ok(backOffice(team), UPDATE_WAREHOUSE, { id: createWarehouse.id, input: { name: 'Leeds North', countryCode: 'ie', enabled: false } });
    expect(updateWarehouse).toMatchObject({ code: 'leeds', name: 'Leeds North', countryCode: 'IE', enabled: false });
    // A country in lower case is taken, and kept in upper case (as orders take a destination).
    const { createWarehouse: york } = await h.ok(backOffice('otherwh'), CREATE_WAREHOUSE, { input: { code: 'york', name: 'York', countryCode: 'gb' } });
    expect(york.countryCode).toBe('GB');
    const { warehouses } = await h.ok(backOffice(team), '{ warehouses { code name enabled } }');
    expect(warehouses).toEqual([{ code: 'leeds', name: 'Leeds North', enabled: false }]);
  });

  it('names every bad field of a warehouse', async () => {
    const problem = await h.problem(backOffice(team), CREATE_WAREHOUSE, { input: { code: 'Print On Demand', name: '', countryCode: 'UK' } });
    expect(problem).toMatchObject({ problemType: 'validation-failed' });
    expect(problem.violations!.map((v) => v.property)).toEqual(['input.code', 'input.name', 'input.countryCode']);
    expect(await h.problem(backOffice(team), CREATE_WAREHOUSE, { input: { code: 'print-on-demand', name: 'x', countryCode: 'GB' } })).toMatchObject({
      violations: [{ property: 'input.code', message: expect.stringMatching(/reserved/) }],
    });
  });

  it('sets and adjusts stock with a mandatory reason, logging who, how much and why; never below 0 nor above a count\'s bound', async () => {
    const w = await warehouse(h, team, 'york');
    const p = await h.product(team);
    const { setStock: set } = await h.ok(backOffice(team), SET_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, quantity: 12, reason: 'Stocktake' } });
    expect(set).toMatchObject({ productUuid: p.productUuid, onHand: 12, held: 0, available: 12, warehouse: { id: w, code: 'york' } });
    const { adjustStock } = await h.ok(backOffice(team), ADJUST_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, delta: -5, reason: 'Damaged in transit' } });
    expect(adjustStock).toMatchObject({ onHand: 7, available: 7 });
    expect(await h.problem(backOffice(team), ADJUST_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, delta: -8, reason: 'x' } })).toMatchObject({
      problemType: 'validation-failed',
      violations: [{ property: 'input.delta', message: expect.stringMatching(/below 0 \(on hand: 7\)/) }],
    });
    // nor above a count's bound: additions that reached the column's range answered 500
    expect(await h.problem(backOffice(team), ADJUST_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, delta: 999_994, reason: 'x' } })).toMatchObject({
      problemType: 'validation-failed',
      violations: [{ property: 'input.delta', message: expect.stringMatching(/above 1000000 \(on hand: 7\)/) }],
    });
    expect(await h.problem(backOffice(team), SET_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, quantity: -1, reason: ' ' } })).toMatchObject({
      violations: [{ property: 'input.quantity' }, { property: 'input.reason' }],
    });
    const { stockAdjustments } = await h.ok(backOffice(team), `query ($p: ID!) { stockAdjustments(productUuid: $p) { kind delta onHandAfter reason actor at warehouse { code } } }`, { p: p.productUuid });
    expect(stockAdjustments).toEqual([
      { kind: 'ADJUST', delta: -5, onHandAfter: 7, reason: 'Damaged in transit', actor: `backoffice:user@${team}`, at: expect.any(String), warehouse: { code: 'york' } },
      { kind: 'SET', delta: 12, onHandAfter: 12, reason: 'Stocktake', actor: `backoffice:user@${team}`, at: expect.any(String), warehouse: { code: 'york' } },
    ]);
    // The database itself refuses negative stock, whatever the code does.
    await expect(h.pool.query('UPDATE stock.stock_level SET on_hand = -1 WHERE product_uuid = $1', [p.productUuid])).rejects.toThrow(/check constraint/);
  });

  it('a count waits for the warehouse being enabled or disabled (and the other way round), so each event tells the figure the other leaves', async () => {
    const w = await warehouse(h, team, 'sharing');
    const p = await h.product(team);
    const disabling = await h.pool.connect();
    try {
      await disabling.query('BEGIN');
      await disabling.query('SELECT 1 FROM stock.warehouse WHERE id = $1 FOR NO KEY UPDATE', [w]);
      let done = false;
      const count = h.ok(backOffice(team), SET_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, quantity: 4, reason: 'Stocktake' } }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      await disabling.query('COMMIT');
      await count;
      expect(done).toBe(true);
    } finally {
      disabling.release();
    }
  });

  it('shows per-warehouse stock on the Product entity, enabled or not', async () => {
    const on = await warehouse(h, team, 'on');
    const off = await warehouse(h, team, 'off', { enabled: false });
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, on, 4);
    await setStock(h, team, p.productUuid, off, 9);
    const { _entities } = await h.ok(backOffice(team), PRODUCT_STOCK, { representations: [{ __typename: 'Product', uuid: p.productUuid }] });
    expect(_entities).toEqual([
      {
        uuid: p.productUuid,
        stock: 4,
        warehouseStock: [
          { warehouse: { code: 'off', enabled: false }, onHand: 9, held: 0, available: 9 },
          { warehouse: { code: 'on', enabled: true }, onHand: 4, held: 0, available: 4 },
        ],
      },
    ]);
  });

  describe('stock-level.changed', () => {
    it('is written exactly when a product\'s figure changes, one per product, with the previous figure', async () => {
      const w1 = await warehouse(h, team, 'evt1');
      const w2 = await warehouse(h, team, 'evt2');
      const p = await h.product(team, { sku: 'EVT-1' });
      const q = await h.product(team, { sku: null });
      let seq = await lastOutboxSeq(h);
      await setStock(h, team, p.productUuid, w1, 5); // 0 -> 5
      await setStock(h, team, p.productUuid, w1, 5); // same count: no change
      await setStock(h, team, q.productUuid, w1, 0); // sold out stays 0: no change
      await h.ok(backOffice(team), ADJUST_STOCK, { input: { productUuid: p.productUuid, warehouseId: w2, delta: 2, reason: 'found' } }); // 5 -> 7
      await setStock(h, team, q.productUuid, w2, 3); // 0 -> 3
      let rows = await outboxAfter(h, seq);
      expect(rows.map((r) => [r.topic, r.event_key, r.envelope.type])).toEqual([
        [TOPICS.stockLevels, p.productUuid, 'stock-level.changed'],
        [TOPICS.stockLevels, p.productUuid, 'stock-level.changed'],
        [TOPICS.stockLevels, q.productUuid, 'stock-level.changed'],
      ]);
      expect(rows.map((r) => r.envelope.payload)).toEqual([
        { teamCode: team, productUuid: p.productUuid, sku: 'EVT-1', stock: 5, previousStock: 0, changedAt: expect.any(String) },
        { teamCode: team, productUuid: p.productUuid, sku: 'EVT-1', stock: 7, previousStock: 5, changedAt: expect.any(String) },
        { teamCode: team, productUuid: q.productUuid, sku: null, stock: 3, previousStock: 0, changedAt: expect.any(String) },
      ]);

      // Disabling a warehouse: one event per product whose figure changed; renaming: none.
      seq = await lastOutboxSeq(h);
      await h.ok(backOffice(team), UPDATE_WAREHOUSE, { id: w2, input: { name: 'Renamed' } });
      expect(await outboxAfter(h, seq)).toEqual([]);
      await h.ok(backOffice(team), UPDATE_WAREHOUSE, { id: w2, input: { enabled: false } });
      rows = await outboxAfter(h, seq);
      expect(rows.map((r) => r.envelope.payload)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ productUuid: p.productUuid, stock: 5, previousStock: 7 }),
          expect.objectContaining({ productUuid: q.productUuid, stock: 0, previousStock: 3 }),
        ]),
      );
      expect(rows).toHaveLength(2);
      seq = await lastOutboxSeq(h);
      await h.ok(backOffice(team), UPDATE_WAREHOUSE, { id: w2, input: { enabled: true } });
      expect((await outboxAfter(h, seq)).map((r) => figureChangeIn(r).previousStock)).toEqual(expect.arrayContaining([5, 0]));
    });

    it('disabling a warehouse stocking 2500 products writes one event for each', async () => {
      const w = await warehouse(h, 'big', 'main');
      // Fixture rows straight into the tables: 2500 products of team big, each with stock here.
      // Their events go to the outbox as four array parameters, however many (a warehouse may stock
      // 100 000 products; one statement binds at most 65535 parameters).
      await h.pool.query(
        `WITH p AS (
           INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, version)
           SELECT gen_random_uuid(), 'big', 'BIG-' || g, 'active', false, false, 1 FROM generate_series(1, 2500) g RETURNING uuid)
         INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand) SELECT uuid, $1, 'big', 2 FROM p`,
        [w],
      );
      const seq = await lastOutboxSeq(h);
      await h.ok(backOffice('big'), UPDATE_WAREHOUSE, { id: w, input: { enabled: false } });
      const rows = await outboxAfter(h, seq);
      expect(rows).toHaveLength(2500);
      expect(new Set(rows.map((r) => r.event_key)).size).toBe(2500);
      expect(rows.map(figureChangeIn).every((c) => c.previousStock === 2 && c.stock === 0)).toBe(true);
    }, 60_000);

    it('is not written for print-on-demand approval or activation, nor for deletion (they show only in the feed; stock-level.revised, never pushed, carries them)', async () => {
      const w = await warehouse(h, team, 'podw');
      let p = await h.product(team);
      await setStock(h, team, p.productUuid, w, 1);
      const seq = await lastOutboxSeq(h);
      p = await h.updateProduct(p, { podApproved: true });
      p = await h.updateProduct(p, { podEnabled: true });
      p = await h.updateProduct(p, { activeState: 'inactive' });
      p = await h.updateProduct(p, { deleted: true });
      expect(await figureEventsAfter(h, seq)).toEqual([
        ['stock-level.revised', 1, 10_001],
        ['stock-level.revised', 10_001, 0],
      ]);
    });

    it('a refused change writes nothing', async () => {
      const w = await warehouse(h, team, 'refw');
      const p = await h.product(team);
      await setStock(h, team, p.productUuid, w, 1);
      const seq = await lastOutboxSeq(h);
      await h.problem(backOffice(team), ADJUST_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, delta: -2, reason: 'x' } });
      await h.problem(backOffice('someoneelse'), SET_STOCK, { input: { productUuid: p.productUuid, warehouseId: w, quantity: 5, reason: 'x' } });
      expect(await outboxAfter(h, seq)).toEqual([]);
    });
  });

  it('service identities act for a team they name', async () => {
    const { createWarehouse } = await h.ok(ordersService, CREATE_WAREHOUSE, { input: { teamCode: 'svc', code: 'main', name: 'Main', countryCode: 'DE' } });
    expect(createWarehouse.code).toBe('main');
    expect(await h.problem(ordersService, CREATE_WAREHOUSE, { input: { code: 'main', name: 'Main', countryCode: 'DE' } })).toMatchObject({
      violations: [{ property: 'teamCode' }],
    });
    expect(await h.ok(ordersService, '{ warehouses(teamCode: "svc") { code } }')).toEqual({ warehouses: [{ code: 'main' }] });
  });
});
