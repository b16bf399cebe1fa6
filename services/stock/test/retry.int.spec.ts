import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { openStockDb, STOCK_MIGRATIONS_DIR, type StockDb } from '../src';
import { inPgTransaction, isRetryableConflict, type PgTransaction } from '@pf/platform/db/transaction';
import { changeWithEvents } from '../src/use-cases/deps';

/**
 * The use cases lock in one fixed order, so they should never deadlock; should Postgres abort a
 * transaction anyway (deadlock, serialization failure), the caller must not see it.
 */
describe('stock transactions that lose a lock race', () => {
  let db: TestDatabase;
  let stock: StockDb;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'stock', migrationsDir: STOCK_MIGRATIONS_DIR }]);
    stock = openStockDb(db.url, 4);
    await stock.pool.query(
      `INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, version)
       VALUES ('00000000-0000-4000-8000-000000000001', 't', 'X', 'active', false, false, 1),
              ('00000000-0000-4000-8000-000000000002', 't', 'Y', 'active', false, false, 1)`,
    );
  });
  afterAll(async () => {
    await stock?.close();
    await db?.drop();
  });

  it('recognises a deadlock as pg reports it', async () => {
    const error = await deadlock((fn) => inPgTransaction(stock.pool, fn)).catch((err: unknown) => err);
    expect(isRetryableConflict(error)).toBe(true);
    expect(isRetryableConflict(new Error('duplicate key value violates unique constraint'))).toBe(false);
  });

  it('runs the loser of a deadlock again, so both callers succeed', async () => {
    const attempts: number[] = [];
    const deps = { pool: stock.pool, prisma: stock.prisma, podCountryCode: 'GB' };
    let n = 0;
    const results = await deadlock(async (fn) => {
      const mine = ++n;
      return changeWithEvents(deps, async (tx) => {
        attempts.push(mine);
        return { result: await fn(tx), events: [] };
      });
    });
    expect(results).toEqual(['done', 'done']);
    // One of the two ran twice.
    expect(attempts.length).toBe(3);
  });

  /** Two transactions lock the two product rows in opposite orders, meeting in the middle. */
  async function deadlock(run: (fn: (tx: PgTransaction) => Promise<string>) => Promise<string>): Promise<string[]> {
    let arrived = 0;
    let release!: () => void;
    const bothHoldOne = new Promise<void>((r) => (release = r));
    const lockOrder = [
      ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
      ['00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001'],
    ];
    let round = 0;
    return Promise.all(
      lockOrder.map(() =>
        run(async (tx) => {
          const [first, second] = lockOrder[round++ % 2]!;
          await tx.query('SELECT 1 FROM stock.product WHERE uuid = $1::uuid FOR UPDATE', [first]);
          if (++arrived === 2) release();
          // Only the first meeting waits; a retried attempt goes straight on.
          if (arrived <= 2) await bothHoldOne;
          await tx.query('SELECT 1 FROM stock.product WHERE uuid = $1::uuid FOR UPDATE', [second]);
          return 'done';
        }),
      ),
    );
  }
});
