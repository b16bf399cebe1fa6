import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { WEBHOOKS_MIGRATIONS_DIR } from '../src';
import { addStockChange, claimDueWindows, deleteClosedWindow } from '../src/repositories/stock-windows';

/** Section 6: at most one stock-level-updated per channel every ten minutes, even when a window closes late. */
describe('stock windows of a team, one after the other', () => {
  let db: TestDatabase;
  let sql: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'webhooks', migrationsDir: WEBHOOKS_MIGRATIONS_DIR }]);
    sql = new pg.Pool({ connectionString: db.url, max: 2, options: '-c search_path=webhooks' });
  }, 30_000);
  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  const change = (productUuid: string) =>
    addStockChange(sql, { teamCode: 'late', productUuid, sku: productUuid.slice(0, 4), changedAt: new Date(), windowSeconds: 0 });

  it('a later window waits while an older one is still being closed, and falls due a whole window after it is sent', async () => {
    await change('00000000-0000-4000-8000-000000000001');
    const [first] = await claimDueWindows(sql, { limit: 10, leaseSeconds: 1 });
    expect(first).toBeDefined();
    // The figures cannot be read: the first window stays closing. A change meanwhile opens the next, due at once.
    await change('00000000-0000-4000-8000-000000000002');
    await new Promise((r) => setTimeout(r, 1100));
    // Its lease over, the first is claimed again; the second, though due, is not claimed with it.
    const again = await claimDueWindows(sql, { limit: 10, leaseSeconds: 60 });
    expect(again.map((w) => w.id)).toEqual([first!.id]);
    // Sent: the next window falls due a whole window (600 s here) later, not at once.
    expect(await deleteClosedWindow(sql, again[0]!.id, again[0]!.leaseToken, 600)).toBe(true);
    expect(await claimDueWindows(sql, { limit: 10, leaseSeconds: 60 })).toEqual([]);
    const { rows } = await sql.query<{ wait: number }>(`SELECT extract(epoch FROM due_at - now())::int AS wait FROM stock_window WHERE team_code = 'late'`);
    expect(rows).toEqual([{ wait: expect.any(Number) }]);
    expect(rows[0]!.wait).toBeGreaterThanOrEqual(598);
  });
});
