import { randomUUID } from 'node:crypto';
import { withClockAhead } from '@pf/platform/testing/clock';
import { openStockDb, StockUseCases, type StockDb } from '../src';
import { holdOrder, lastOutboxSeq, ordersService, outboxAfter, setStock, startStock, warehouse, type StockHarness } from './harness';

/**
 * Consumers keep a product's figure with the newest `changedAt` (docs/orders.md, the stock read
 * model). Two replicas of stock whose clocks differ must still stamp one product's changes in the
 * order they happened: the stamp is the database's clock, read under the product's lock.
 */
describe('the changedAt of figure events', () => {
  let h: StockHarness;
  let replicaDb: StockDb;
  const team = 'clk';
  let a: string;

  beforeAll(async () => {
    h = await startStock();
    a = await warehouse(h, team, 'a', { countryCode: 'GB' });
    replicaDb = openStockDb(h.db.url, 2);
  }, 30_000);
  afterAll(async () => {
    await replicaDb?.close();
    await h?.close();
  });

  it('follows the order of the changes, not the clock of the replica that made each', async () => {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, a, 10);
    const seq = await lastOutboxSeq(h);
    // A replica whose clock runs an hour ahead holds first...
    const ahead = new StockUseCases({ pool: replicaDb.pool, prisma: replicaDb.prisma, podCountryCode: 'GB' });
    const held = await withClockAhead(3_600_000, () =>
      ahead.holdStock(ordersService, { teamCode: team, orderUuid: randomUUID(), lines: [{ lineNumber: 1, productUuid: p.productUuid, quantity: 2 }] }),
    );
    expect(held.kind).toBe('held');
    // ...then this one, on time.
    await holdOrder(h, team, randomUUID(), [{ lineNumber: 1, productUuid: p.productUuid, quantity: 3 }]);
    const events = (await outboxAfter(h, seq)).map((e) => e.envelope.payload as { stock: number; changedAt: string });
    expect(events.map((e) => e.stock)).toEqual([8, 5]);
    const [first, second] = events.map((e) => Date.parse(e.changedAt));
    expect(second!).toBeGreaterThanOrEqual(first!);
    // And neither is the fast replica's hour.
    const { rows } = await h.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    expect(rows[0]!.now.getTime() - first!).toBeGreaterThanOrEqual(0);
  });
});
