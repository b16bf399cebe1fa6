import { randomUUID } from 'node:crypto';
import { ProductCreated, ProductDeleted } from '@pf/platform/events/catalog';
import { TOPICS } from '@pf/platform/events/topics';
import { openStockDb } from '../src/db';
import { announceFigures } from '../src/use-cases/product-read-model';
import { figureEventsAfter, lastOutboxSeq, outboxAfter, setStock, startStock, warehouse, type StockHarness } from './harness';

/**
 * `stock-level.revised`: the figures catalog changes set (a product's first, print-on-demand,
 * deletion), for the read models that follow figures; never a `stock-level.changed`, which is
 * what channels are pushed.
 */
describe('figures set by catalog changes', () => {
  let h: StockHarness;
  const team = 'srev';
  let main: string;

  beforeAll(async () => {
    h = await startStock();
    main = await warehouse(h, team, 'main');
  });
  afterAll(() => h?.close());

  const written = async (seq: number) =>
    (await outboxAfter(h, seq)).map((r) => ({ topic: r.topic, key: r.event_key, type: r.envelope.type, payload: r.envelope.payload }));

  it('announces a new product\'s first figure, 0 when nobody stocked it, and nothing on a replay', async () => {
    const seq = await lastOutboxSeq(h);
    const p = { productUuid: randomUUID(), teamCode: team, sku: 'REV-1', name: 'Revised', activeState: 'active' as const, podEnabled: false, podApproved: false, deleted: false, version: 1 };
    const created = ProductCreated.create(p.productUuid, p);
    expect(await h.applyEvent(created)).toBe('applied');
    expect(await written(seq)).toEqual([
      {
        topic: TOPICS.stockLevels,
        key: p.productUuid,
        type: 'stock-level.revised',
        payload: expect.objectContaining({ teamCode: team, productUuid: p.productUuid, sku: 'REV-1', stock: 0, previousStock: null }),
      },
    ]);
    const again = await lastOutboxSeq(h);
    expect(await h.applyEvent(created)).toBe('duplicate');
    expect(await written(again)).toEqual([]);
  });

  it('announces a print-on-demand product\'s first figure with the sentinel', async () => {
    const seq = await lastOutboxSeq(h);
    await h.product(team, { podEnabled: true, podApproved: true });
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.revised', null, 10_000]]);
  });

  it('follows print-on-demand approval and deletion with revised figures; stock movements and a withdrawal with changed ones', async () => {
    const p = await h.product(team, { sku: 'REV-2' });
    let seq = await lastOutboxSeq(h);
    await setStock(h, team, p.productUuid, main, 4);
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.changed', 0, 4]]);

    seq = await lastOutboxSeq(h);
    const approved = await h.updateProduct(p, { podEnabled: true, podApproved: true });
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.revised', 4, 10_004]]);

    seq = await lastOutboxSeq(h);
    const renamed = await h.updateProduct(approved, { name: 'Renamed', activeState: 'inactive' });
    expect(await written(seq)).toEqual([]);

    // Withdrawn: the 10000 goes away while the product stays listed, a stock change to push.
    seq = await lastOutboxSeq(h);
    const withdrawn = await h.updateProduct(renamed, { podApproved: false });
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.changed', 10_004, 4]]);
    seq = await lastOutboxSeq(h);
    const again = await h.updateProduct(withdrawn, { podApproved: true });
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.revised', 4, 10_004]]);

    seq = await lastOutboxSeq(h);
    await h.applyEvent(ProductDeleted.create(p.productUuid, { ...again, deleted: true, version: again.version + 1 }));
    expect(await figureEventsAfter(h, seq)).toEqual([['stock-level.revised', 10_004, 0]]);
  });

  it('writes nothing for a stale state', async () => {
    const p = await h.product(team);
    const next = await h.updateProduct(p, { podEnabled: true, podApproved: true });
    const seq = await lastOutboxSeq(h);
    expect(await h.applyEvent(ProductCreated.create(p.productUuid, { ...next, podApproved: false, version: 1 }))).toBe('stale');
    expect(await written(seq)).toEqual([]);
  });

  it('announceFigures: every product\'s current figure once, in batches, deleted ones as 0', async () => {
    const other = 'srev2';
    const w = await warehouse(h, other, 'main');
    const stocked = await h.product(other);
    await setStock(h, other, stocked.productUuid, w, 6);
    const gone = await h.product(other, { podEnabled: true, podApproved: true });
    await h.updateProduct(gone, { deleted: true });
    const db = openStockDb(h.db.url, 2);
    try {
      const seq = await lastOutboxSeq(h);
      const announced = await announceFigures({ pool: db.pool, prisma: db.prisma, podCountryCode: 'GB' }, { batchSize: 2 });
      const rows = await outboxAfter(h, seq);
      const { rows: known } = await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM stock.product');
      expect(announced).toBe(known[0]!.n);
      expect(rows).toHaveLength(announced);
      expect(new Set(rows.map((r) => r.event_key)).size).toBe(announced);
      expect(rows.every((r) => r.envelope.type === 'stock-level.revised' && (r.envelope.payload as { previousStock: unknown }).previousStock === null)).toBe(true);
      const figureOf = (uuid: string) => (rows.find((r) => r.event_key === uuid)!.envelope.payload as { stock: number }).stock;
      expect(figureOf(stocked.productUuid)).toBe(6);
      expect(figureOf(gone.productUuid)).toBe(0);
    } finally {
      await db.close();
    }
  });
});
