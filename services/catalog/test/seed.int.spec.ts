import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { CATALOG_MIGRATIONS_DIR, seedDemoCatalog } from '../src';
import { DEMO_PRODUCTS } from '../src/seed';

describe('seedDemoCatalog', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'catalog', migrationsDir: CATALOG_MIGRATIONS_DIR }]);
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const outboxTypes = async () =>
    (await pool.query<{ type: string; n: number }>(`SELECT envelope->>'type' AS type, count(*)::int AS n FROM catalog.outbox_event GROUP BY 1 ORDER BY 1`)).rows;

  it('gives the team a realistic catalogue through the use cases, events included', async () => {
    const seeded = await seedDemoCatalog({ databaseUrl: db.url, teamCode: 'demo' });
    expect(seeded.created).toBe(true);
    expect(seeded.products).toHaveLength(DEMO_PRODUCTS.length);
    expect(seeded.products.length).toBeGreaterThanOrEqual(30);

    const states = new Set(seeded.products.map((p) => p.activeState));
    expect(states).toEqual(new Set(['active', 'inactive', 'pre-order']));
    expect(seeded.products.filter((p) => p.sku === null).length).toBeGreaterThanOrEqual(2);
    const pod = (enabled: boolean, approved: boolean) => seeded.products.filter((p) => p.podEnabled === enabled && p.podApproved === approved).length;
    expect(pod(true, true)).toBeGreaterThanOrEqual(2);
    expect(pod(true, false)).toBeGreaterThanOrEqual(2);
    expect(pod(false, true)).toBeGreaterThanOrEqual(2);
    expect(pod(false, false)).toBeGreaterThanOrEqual(2);

    const { rows } = await pool.query<{ with_dims: number; without_dims: number; partial_dims: number; skus: number; distinct_skus: number }>(
      `SELECT count(*) FILTER (WHERE weight_unit IS NOT NULL OR length_unit IS NOT NULL)::int AS with_dims,
              count(*) FILTER (WHERE weight_unit IS NULL AND length_unit IS NULL AND width_unit IS NULL AND depth_unit IS NULL)::int AS without_dims,
              count(*) FILTER (WHERE weight_unit IS NOT NULL AND length_unit IS NULL)::int AS partial_dims,
              count(sku)::int AS skus, count(DISTINCT sku)::int AS distinct_skus
         FROM catalog.product WHERE team_code = 'demo'`,
    );
    expect(rows[0]!.with_dims).toBeGreaterThan(20);
    expect(rows[0]!.without_dims).toBeGreaterThanOrEqual(3);
    expect(rows[0]!.partial_dims).toBeGreaterThanOrEqual(3);
    expect(rows[0]!.distinct_skus).toBe(rows[0]!.skus);

    expect(seeded.shippingMethodCodes).toEqual(['standard', 'express', 'tracked-eu', 'economy-intl']);
    expect(await outboxTypes()).toEqual([
      { type: 'product.created', n: DEMO_PRODUCTS.length },
      { type: 'shipping-method.changed', n: 4 },
    ]);
  });

  it('is idempotent: a team that has products is left alone, and its products are returned', async () => {
    const first = (await pool.query(`SELECT uuid::text FROM catalog.product WHERE team_code = 'demo' ORDER BY created_at, uuid`)).rows.map((r) => r.uuid);
    const again = await seedDemoCatalog({ databaseUrl: db.url, teamCode: 'demo' });
    expect(again.created).toBe(false);
    expect(again.products.map((p) => p.uuid)).toEqual(first);
    expect(again.shippingMethodCodes).toHaveLength(4);
    expect(await outboxTypes()).toEqual([
      { type: 'product.created', n: DEMO_PRODUCTS.length },
      { type: 'shipping-method.changed', n: 4 },
    ]);
  });

  it('seeds each team on its own', async () => {
    const other = await seedDemoCatalog({ databaseUrl: db.url, teamCode: 'other' });
    expect(other.created).toBe(true);
    expect(other.products).toHaveLength(DEMO_PRODUCTS.length);
  });
});
