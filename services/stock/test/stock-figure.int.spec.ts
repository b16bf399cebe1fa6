import { randomUUID } from 'node:crypto';
import type { ProductState } from '@pf/platform/events/catalog';
import { feedPageSql, stockFigure } from '../src';
import {
  backOffice,
  channelOf,
  feedOf,
  HOLD_STOCK,
  ordersService,
  PRODUCT_FIGURE,
  setStock,
  startStock,
  STOCK_LEVELS,
  warehouse,
  type StockHarness,
} from './harness';

/**
 * Rule S1 against the database: for every case the feed's SQL, the Product entity and the pure
 * domain function (fed with the rows as stored) give the same figure.
 */
describe('rule S1 in the database', () => {
  let h: StockHarness;
  const team = 'sone';
  let main: string;
  let second: string;
  let off: string;
  const cases = new Map<string, { product: ProductState; expected: number | null }>();

  async function product(name: string, state: Partial<ProductState>, stock: [string, number][], expected: number | null) {
    const p = await h.product(team, state);
    for (const [warehouseId, quantity] of stock) await setStock(h, team, p.productUuid, warehouseId, quantity);
    cases.set(name, { product: p, expected });
    return p;
  }

  beforeAll(async () => {
    h = await startStock();
    main = await warehouse(h, team, 'main', { countryCode: 'GB' });
    second = await warehouse(h, team, 'second', { countryCode: 'NL' });
    off = await warehouse(h, team, 'off', { countryCode: 'US', enabled: false });

    await product('active', {}, [[main, 5]], 5);
    await product('inactive is included', { activeState: 'inactive' }, [[main, 5]], 5);
    await product('pre-order is included', { activeState: 'pre-order' }, [[second, 3]], 3);
    await product('deleted is excluded', { deleted: true }, [[main, 5]], null);
    await product('a disabled warehouse counts for nothing', {}, [[off, 7]], 0);
    await product('sum of the enabled warehouses', {}, [[main, 2], [second, 3], [off, 100]], 5);
    await product('print-on-demand approved and enabled adds 10000', { podApproved: true, podEnabled: true }, [[main, 4]], 10_004);
    await product('approved only adds nothing', { podApproved: true, podEnabled: false }, [[main, 4]], 4);
    await product('enabled only adds nothing', { podApproved: false, podEnabled: true }, [[main, 4]], 4);
    await product('print-on-demand without stock is exactly 10000', { podApproved: true, podEnabled: true }, [], 10_000);
    await product('sold out at 0', {}, [[main, 0], [second, 0]], 0);
    await product('sold out, never stocked', {}, [], 0);
    await product('SKU null', { sku: null }, [[second, 6]], 6);
    const held = await product('held stock is not counted', {}, [[main, 5]], 3);
    const clamped = await product('a warehouse holding more than it has counts 0, not less', {}, [[main, 2], [second, 4]], 4);
    for (const [p, quantity] of [
      [held, 2],
      [clamped, 2],
    ] as const) {
      const { holdStock } = await h.ok(ordersService, HOLD_STOCK, {
        input: { teamCode: team, orderUuid: randomUUID(), lines: [{ lineNumber: 1, productUuid: p.productUuid, quantity }] },
      });
      expect(holdStock.__typename).toBe('StockHeld');
    }
    // The count in main drops below what is held there.
    await setStock(h, team, clamped.productUuid, main, 1);
    // Counts no API call makes (each is at most a million), summing past a 32-bit integer: the page
    // must not fail on the cast.
    const huge = await product('beyond a 32-bit integer: told as the largest one', { podApproved: true, podEnabled: true }, [[main, 1], [second, 1]], 2_147_483_647);
    await h.pool.query('UPDATE stock.stock_level SET on_hand = 2000000000 WHERE product_uuid = $1', [huge.productUuid]);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  async function storedFigure(p: ProductState): Promise<number | null> {
    const { rows } = await h.pool.query<{ enabled: boolean; on_hand: number; held: number }>(
      `SELECT w.enabled, s.on_hand, s.held FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id WHERE s.product_uuid = $1`,
      [p.productUuid],
    );
    const { rows: facts } = await h.pool.query<{ deleted: boolean; pod_enabled: boolean; pod_approved: boolean }>(
      'SELECT deleted, pod_enabled, pod_approved FROM stock.product WHERE uuid = $1',
      [p.productUuid],
    );
    const f = facts[0]!;
    return stockFigure(
      { deleted: f.deleted, podEnabled: f.pod_enabled, podApproved: f.pod_approved },
      rows.map((r) => ({ warehouseEnabled: r.enabled, onHand: r.on_hand, held: r.held })),
    );
  }

  it('the feed, the Product entity and the domain rule agree, case by case', async () => {
    const feed = await feedOf(h, channelOf(team));
    const { _entities } = await h.ok(backOffice(team), PRODUCT_FIGURE, {
      representations: [...cases.values()].map((c) => ({ __typename: 'Product', uuid: c.product.productUuid })),
    });
    const entity = new Map((_entities as ({ uuid: string; stock: number } | null)[]).flatMap((e) => (e ? [[e.uuid, e.stock] as const] : [])));
    const results = [];
    for (const [name, c] of cases) {
      results.push({
        name,
        feed: feed.get(c.product.productUuid)?.stock ?? null,
        entity: entity.get(c.product.productUuid),
        rule: await storedFigure(c.product),
        expected: c.expected,
      });
    }
    expect(results).toEqual(
      [...cases].map(([name, c]) => ({
        name,
        feed: c.expected,
        // A deleted product is no entity for a merchant, as in the catalog (services see it read 0).
        entity: c.expected ?? undefined,
        rule: c.expected,
        expected: c.expected,
      })),
    );
  });

  it('lists every non-deleted product of the team, with its SKU (null included)', async () => {
    const feed = await feedOf(h, channelOf(team));
    const listed = [...cases.values()].filter((c) => c.expected !== null).map((c) => c.product);
    expect(new Set(feed.keys())).toEqual(new Set(listed.map((p) => p.productUuid)));
    for (const p of listed) expect(feed.get(p.productUuid)!.sku).toBe(p.sku);
    expect(feed.get(cases.get('SKU null')!.product.productUuid)).toEqual({ sku: null, stock: 6 });
  });
});

describe('stock-levels feed paging', () => {
  let h: StockHarness;
  const team = 'pages';
  let products: ProductState[];

  beforeAll(async () => {
    h = await startStock();
    const w = await warehouse(h, team, 'main');
    products = [];
    for (let i = 0; i < 25; i++) {
      const p = await h.product(team, { sku: `P-${i}` });
      if (i % 3 === 0) await setStock(h, team, p.productUuid, w, i);
      products.push(p);
    }
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('walks the team in product uuid order with keyset cursors; the last page has no cursor', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    do {
      const { stockLevels }: any = await h.ok(channelOf(team), STOCK_LEVELS, { after, first: 10 });
      sizes.push(stockLevels.items.length);
      seen.push(...stockLevels.items.map((i: { productUuid: string }) => i.productUuid));
      after = stockLevels.nextCursor;
    } while (after);
    expect(sizes).toEqual([10, 10, 5]);
    // The bulk form of a page: the same rows as {sku, stock}, as one JSON text.
    const { stockLevels: page }: any = await h.ok(channelOf(team), `{ stockLevels(first: 7) { items { sku stock } itemsJson } }`);
    expect(JSON.parse(page.itemsJson)).toEqual(page.items);
    expect(page.itemsJson).toMatch(/^\[\{"sku":"P-\d+","stock":\d+\},/);
    expect(seen).toEqual(products.map((p) => p.productUuid).sort());
  });

  it('a product deleted between two pages does not shift the pages after it', async () => {
    const { stockLevels: first }: any = await h.ok(channelOf(team), STOCK_LEVELS, { first: 10 });
    const { stockLevels: expected }: any = await h.ok(channelOf(team), STOCK_LEVELS, { first: 10, after: first.nextCursor });
    const victim = products.find((p) => p.productUuid === first.items[3].productUuid)!;
    await h.updateProduct(victim, { deleted: true });
    const { stockLevels: second }: any = await h.ok(channelOf(team), STOCK_LEVELS, { first: 10, after: first.nextCursor });
    expect(second).toEqual(expected);
    await h.updateProduct({ ...victim, version: victim.version + 1 }, { deleted: false });
  });

  it('refuses a page size over 5000 and a cursor it did not make, naming the argument', async () => {
    expect(await h.problem(channelOf(team), STOCK_LEVELS, { first: 5001 })).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'first' }] });
    expect(await h.problem(channelOf(team), STOCK_LEVELS, { after: 'page-2' })).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'after' }] });
  });

  it('reads each page with index range scans only: the partial index product_feed, and stock_level_figure per product', async () => {
    // Enough rows for the planner to prefer indexes as it would in production.
    await h.pool.query(
      `INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version)
       SELECT gen_random_uuid(), 'bulk', 'B-' || g, 'active', false, false, g % 10 = 0, 1 FROM generate_series(1, 20000) g`,
    );
    await h.pool.query(
      `INSERT INTO stock.warehouse (id, team_code, code, name, country_code, enabled)
       VALUES (gen_random_uuid(), 'bulk', 'a', 'A', 'GB', true), (gen_random_uuid(), 'bulk', 'b', 'B', 'NL', true), (gen_random_uuid(), 'bulk', 'c', 'C', 'US', false)`,
    );
    await h.pool.query(
      `INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand)
       SELECT p.uuid, w.id, 'bulk', 3 FROM stock.product p CROSS JOIN stock.warehouse w WHERE p.team_code = 'bulk' AND w.team_code = 'bulk'`,
    );
    await h.pool.query('VACUUM ANALYZE stock.product');
    await h.pool.query('VACUUM ANALYZE stock.stock_level');
    await h.pool.query('ANALYZE stock.warehouse');
    const { rows } = await h.pool.query(`EXPLAIN (FORMAT JSON) ${feedPageSql(true)}`, ['bulk', 5001, '80000000-0000-0000-0000-000000000000']);
    const plan = JSON.stringify(rows[0]['QUERY PLAN']);
    expect(plan).toContain('"Index Name":"product_feed"');
    expect(plan).toContain('"Node Type":"Index Only Scan","Parent Relationship":"Outer","Parallel Aware":false,"Async Capable":false,"Scan Direction":"Forward","Index Name":"stock_level_figure"');
    expect(plan).not.toContain('"Node Type":"Seq Scan","Parent Relationship":"Outer"');
    expect(plan).not.toMatch(/"Node Type":"Sort"/);
  });
});
