import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { inPgTransaction } from '@pf/platform/db/transaction';
import { openStockDb, STOCK_MIGRATIONS_DIR, type StockDb } from '../src';
import { writeHoldChange } from '../src/repositories/hold-repository';

/**
 * A hold's write leaves with COMMIT (one round trip), so its counts are checked by the statement
 * itself (stock.expect_count): a wrong count must fail the transaction, not be seen after it
 * committed.
 */
describe("a hold's write checks its own counts (real Postgres)", () => {
  let db: TestDatabase;
  let stock: StockDb;
  const product = '00000000-0000-4000-8000-000000000001';
  const order = '00000000-0000-4000-8000-0000000000aa';

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'stock', migrationsDir: STOCK_MIGRATIONS_DIR }]);
    stock = openStockDb(db.url, 2);
    await stock.pool.query(
      `INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, version)
       VALUES ($1, 't', 'X', 'active', true, true, 1)`,
      [product],
    );
  });
  afterAll(async () => {
    await stock?.close();
    await db?.drop();
  });

  const holds = async () => (await stock.pool.query('SELECT status FROM stock.stock_hold WHERE order_uuid = $1', [order])).rows;
  const placed = [{ teamCode: 't', orderUuid: order, lineNumber: 1, productUuid: product, warehouseId: null, quantity: 2 }];

  it('commits a write whose counts are as expected', async () => {
    await inPgTransaction(stock.pool, async (tx) => writeHoldChange(tx, { releasedIds: [], placed, deltas: [], at: new Date() }, []));
    expect(await holds()).toEqual([{ status: 'placed' }]);
  });

  it('fails the transaction, naming the count, when a hold to release is not placed; nothing is written', async () => {
    const change = { releasedIds: ['999999'], placed: [{ ...placed[0]!, lineNumber: 2 }], deltas: [], at: new Date() };
    await expect(inPgTransaction(stock.pool, async (tx) => writeHoldChange(tx, change, []))).rejects.toThrow(
      'writeHoldChange: holds released: 0 of 1 rows',
    );
    expect(await holds()).toEqual([{ status: 'placed' }]);
  });
});
