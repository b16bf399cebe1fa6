import { randomUUID } from 'node:crypto';
import { ProductCreated, ProductUpdated } from '@pf/platform/events/catalog';
import { seedDemoStock, type DemoStockProduct } from '../src';
import { backOffice, channelOf, feedOf, startStock, type StockHarness } from './harness';

describe('seedDemoStock', () => {
  let h: StockHarness;
  const team = 'demo';
  const products: DemoStockProduct[] = Array.from({ length: 12 }, (_, i) => ({
    uuid: randomUUID(),
    sku: i === 4 ? null : `DEMO-${i}`,
    activeState: (['active', 'inactive', 'pre-order'] as const)[i % 3]!,
    podEnabled: i === 7 || i === 8,
    podApproved: i === 7 || i === 9,
  }));

  beforeAll(async () => {
    h = await startStock();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('creates two enabled warehouses and a disabled one in different countries, and stock including sold-out products', async () => {
    // One product's catalog event arrived before the seeder ran: its state wins over the seeder's.
    const early = products[11]!;
    await h.applyEvent(
      ProductCreated.create(early.uuid, { productUuid: early.uuid, teamCode: team, sku: 'FROM-EVENT', name: 'x', activeState: 'active', podEnabled: false, podApproved: false, deleted: false, version: 1 }),
    );
    const seeded = await seedDemoStock({ databaseUrl: h.db.url, teamCode: team, products });
    expect(seeded.warehouses.map((w) => [w.code, w.countryCode, w.enabled])).toEqual([
      ['london', 'GB', true],
      ['rotterdam', 'NL', true],
      ['newark', 'US', false],
    ]);
    expect(seeded.stockRowsCreated).toBeGreaterThan(products.length);

    const feed = await feedOf(h, channelOf(team));
    expect(feed.size).toBe(products.length);
    expect(feed.get(early.uuid)!.sku).toBe('FROM-EVENT');
    const figures = products.map((p) => feed.get(p.uuid)!.stock);
    // Sold out (0), including a product whose only stock is in the disabled warehouse; the
    // approved and enabled print-on-demand product carries the sentinel.
    expect(figures.filter((f) => f === 0).length).toBeGreaterThanOrEqual(2);
    expect(figures[7]).toBeGreaterThanOrEqual(10_000);
    expect(figures.filter((f) => f >= 10_000)).toHaveLength(1);
    const { _entities } = await h.ok(backOffice(team), `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { stock warehouseStock { warehouse { code } onHand } } } }`, {
      r: [{ __typename: 'Product', uuid: products[0]!.uuid }],
    });
    expect(_entities[0]).toEqual({ stock: 0, warehouseStock: [{ warehouse: { code: 'london' }, onHand: 0 }, { warehouse: { code: 'newark' }, onHand: 12 }, { warehouse: { code: 'rotterdam' }, onHand: 0 }] });
  });

  it('is idempotent: a second run creates nothing and changes nothing', async () => {
    const before = await feedOf(h, channelOf(team));
    const { rows: outbox } = await h.pool.query('SELECT count(*)::int AS n FROM stock.outbox_event');
    const again = await seedDemoStock({ databaseUrl: h.db.url, teamCode: team, products });
    expect(again.stockRowsCreated).toBe(0);
    expect(again.warehouses).toHaveLength(3);
    expect(await feedOf(h, channelOf(team))).toEqual(before);
    const { rows: after } = await h.pool.query('SELECT count(*)::int AS n FROM stock.outbox_event');
    expect(after[0].n).toBe(outbox[0].n);
  });

  it('records seeded products at version 0, so the catalog\'s events override them', async () => {
    const p = products[1]!;
    const { rows } = await h.pool.query('SELECT version FROM stock.product WHERE uuid = $1', [p.uuid]);
    expect(rows[0].version).toBe(0);
    await h.applyEvent(
      ProductUpdated.create(p.uuid, { productUuid: p.uuid, teamCode: team, sku: 'RENAMED', name: 'x', activeState: p.activeState, podEnabled: true, podApproved: true, deleted: false, version: 1 }),
    );
    expect((await feedOf(h, channelOf(team))).get(p.uuid)).toEqual({ sku: 'RENAMED', stock: 10_025 });
  });
});
