import { feedPageSql, createPrismaClient, StockUseCases } from '../src';
import { channelOf, startStock, type StockHarness } from './harness';

describe('bench', () => {
  let h: StockHarness;
  beforeAll(async () => {
    h = await startStock();
    await h.pool.query(`INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version)
       SELECT gen_random_uuid(), 'bulk', 'SKU-' || g, 'active', g % 7 = 0, g % 5 = 0, g % 50 = 0, 1 FROM generate_series(1, 100000) g`);
    await h.pool.query(`INSERT INTO stock.warehouse (id, team_code, code, name, country_code, enabled)
       VALUES (gen_random_uuid(), 'bulk', 'a', 'A', 'GB', true), (gen_random_uuid(), 'bulk', 'b', 'B', 'NL', true), (gen_random_uuid(), 'bulk', 'c', 'C', 'US', false)`);
    await h.pool.query(`INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand)
       SELECT p.uuid, w.id, 'bulk', (random()*20)::int FROM stock.product p CROSS JOIN stock.warehouse w WHERE p.team_code = 'bulk' AND (w.code <> 'b' OR random() < 0.5)`);
    await h.pool.query('VACUUM ANALYZE stock.product');
    await h.pool.query('VACUUM ANALYZE stock.stock_level');
    await h.pool.query('ANALYZE stock.warehouse');
  }, 600_000);
  afterAll(async () => { await h?.close(); });
  it('measures', async () => {
    const prisma = createPrismaClient(h.db.url, 2);
    const uc = new StockUseCases({ prisma, podCountryCode: 'GB' });
    const { rows } = await h.pool.query(feedPageSql(false), ['bulk', 50000]);
    const after = rows[40000].product_uuid;
    for (let round = 0; round < 4; round++) {
      let t = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await h.pool.query(feedPageSql(true), ['bulk', 5000, after]);
      const pgms = Number(process.hrtime.bigint() - t) / 5e6;
      t = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await uc.stockLevels(channelOf('bulk'), { after, first: 5000 });
      const ucms = Number(process.hrtime.bigint() - t) / 5e6;
      t = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await h.gql(channelOf('bulk'), `query ($after: String) { stockLevels(after: $after, first: 5000) { items { sku stock } nextCursor } }`, { after });
      const gqlms = Number(process.hrtime.bigint() - t) / 5e6;
      console.log(`pg ${pgms.toFixed(1)} usecase ${ucms.toFixed(1)} graphql ${gqlms.toFixed(1)} ms per page`);
    }
    await prisma.$disconnect();
  }, 600_000);
});
