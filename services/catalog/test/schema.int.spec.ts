import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { findPrismaDrift } from '@pf/platform/testing/prisma-drift';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { CATALOG_MIGRATIONS_DIR } from '../src';

const SCHEMA_PATH = path.resolve(__dirname, '../prisma/schema.prisma');
const source = readFileSync(SCHEMA_PATH, 'utf8');
const MIGRATIONS = ['platform/0001_outbox_inbox.sql', 'service/0001_products_and_shipping_methods.sql', 'service/0002_live_product_listing.sql'];

describe('catalog migrations and schema.prisma', () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'catalog', migrationsDir: CATALOG_MIGRATIONS_DIR }]);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('schema.prisma and the migrated database agree', async () => {
    expect(await findPrismaDrift({ schemaPath: SCHEMA_PATH, connectionString: db.url, schema: 'catalog' })).toEqual([]);
  });

  it('running the migrations again changes nothing', async () => {
    const again = await migrate({ connectionString: db.url, schema: 'catalog', sources: serviceMigrationSources(CATALOG_MIGRATIONS_DIR) });
    expect(again).toEqual({ applied: [], skipped: MIGRATIONS });
  });

  it('two concurrent runs on a fresh database apply each migration once', async () => {
    const fresh = await createTestDatabase();
    try {
      const run = () => migrate({ connectionString: fresh.url, schema: 'catalog', sources: serviceMigrationSources(CATALOG_MIGRATIONS_DIR) });
      const [a, b] = await Promise.all([run(), run()]);
      expect([...a.applied, ...b.applied].sort()).toEqual(MIGRATIONS);
      expect(await findPrismaDrift({ source, connectionString: fresh.url, schema: 'catalog' })).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  it('the drift check fails when schema.prisma and the database disagree', async () => {
    const drift = (text: string) => findPrismaDrift({ source: text, connectionString: db.url, schema: 'catalog' });
    const edit = (from: string, to: string) => {
      expect(source).toContain(from);
      return source.replace(from, to);
    };
    expect(await drift(edit('sku               String?   @db.VarChar(255)', 'sku               String?   @db.VarChar(100)'))).toEqual([
      expect.stringMatching(/product\.sku .*varchar\(255\)/),
    ]);
    expect(await drift(edit('description       String?', 'description       String '))).toEqual([
      expect.stringMatching(/product\.description .*required but the column is nullable/),
    ]);
    expect(await drift(edit('@map("weight_measurement") @db.Decimal(12, 3)', '@map("weight_measurement") @db.Decimal(10, 2)'))).toEqual([
      expect.stringMatching(/product\.weight_measurement .*numeric\(12, 3\)/),
    ]);
    expect(await drift(edit('  tracked         Boolean   @default(false)\n', ''))).toEqual([
      expect.stringMatching(/shipping_method\.tracked: column is not in model/),
    ]);
  });

  /** Inserts a product row straight into the table, to see what the database itself refuses. */
  async function insert(columns: Record<string, unknown>): Promise<string | undefined> {
    const row = { uuid: crypto.randomUUID(), team_code: 'acme', name: 'x', ...columns };
    const names = Object.keys(row);
    try {
      await client.query(
        `INSERT INTO catalog.product (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        Object.values(row),
      );
      return undefined;
    } catch (err) {
      return (err as { constraint?: string; code?: string }).constraint ?? (err as { code?: string }).code;
    }
  }

  it('the database backs the domain rules up: states, units, measures, SKUs', async () => {
    expect(await insert({ sku: 'DB-1', active_state: 'pre-order', weight_measurement: 1.5, weight_unit: 'kg' })).toBeUndefined();
    expect(await insert({ active_state: 'Active' })).toBe('product_active_state_check');
    expect(await insert({ weight_measurement: 1, weight_unit: 'cm' })).toBe('product_weight_is_a_measure');
    expect(await insert({ depth_measurement: 1, depth_unit: 'kg' })).toBe('product_depth_is_a_measure');
    expect(await insert({ length_measurement: 1 })).toBe('product_length_is_a_measure');
    expect(await insert({ width_measurement: 0, width_unit: 'cm' })).toBe('product_width_is_a_measure');
    expect(await insert({ sku: '' })).toBe('product_sku_check');
    expect(await insert({ sku: ' padded ' })).toBe('product_sku_check');
    expect(await insert({ sku: 'x'.repeat(256) })).toBe('22001');
    // One live product per SKU and team; deleted products and other teams do not count.
    expect(await insert({ sku: 'DB-1' })).toBe('product_sku_per_team');
    expect(await insert({ sku: 'DB-1', team_code: 'other' })).toBeUndefined();
    expect(await insert({ sku: 'DB-1', deleted_at: new Date() })).toBeUndefined();
    expect(await insert({ sku: null })).toBeUndefined();
    expect(await insert({ sku: null })).toBeUndefined();
  });

  it('the database refuses malformed shipping methods', async () => {
    const insertMethod = async (columns: Record<string, unknown>) => {
      const row = { team_code: 'acme', code: `m${Math.random().toString(36).slice(2, 8)}`, name: 'x', carrier: 'y', ...columns };
      const names = Object.keys(row);
      try {
        await client.query(
          `INSERT INTO catalog.shipping_method (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(row),
        );
        return undefined;
      } catch (err) {
        return (err as { constraint?: string }).constraint;
      }
    };
    expect(await insertMethod({ country_codes: ['GB', 'FR'], min_delivery_days: 1, max_delivery_days: 3 })).toBeUndefined();
    expect(await insertMethod({ country_codes: ['gb'] })).toBe('shipping_method_country_codes');
    expect(await insertMethod({ country_codes: ['GBR'] })).toBe('shipping_method_country_codes');
    expect(await insertMethod({ min_delivery_days: 3, max_delivery_days: 1 })).toBe('shipping_method_delivery_days');
    expect(await insertMethod({ min_delivery_days: 3 })).toBe('shipping_method_delivery_days');
    expect(await insertMethod({ service_level: 'overnight' })).toBe('shipping_method_service_level_check');
    expect(await insertMethod({ code: 'Bad Code' })).toBe('shipping_method_code_check');
    expect(await insertMethod({ code: 'dup' })).toBeUndefined();
    expect(await insertMethod({ code: 'dup' })).toBe('shipping_method_pkey');
  });
});
