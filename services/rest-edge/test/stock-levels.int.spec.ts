import { request } from 'undici';
import { INTERNAL_DETAIL } from '../src/http/errors';
import { createProduct, createWarehouse, deleteProduct, setStock, stockCaughtUp, type NewProduct } from './support/catalog';
import { tapUpstream, type TappedUpstream } from './support/proxy';
import { closeAgents, seedTeam, startSystem, type EdgeResponse, type IssuedToken, type RunningEdge, type System } from './support/system';

interface StockLevel {
  sku: string | null;
  stock: number;
}

/** Stable order for comparing lists (the feed's order is by product uuid, which the test does not know in advance). */
const sorted = (levels: StockLevel[]) => [...levels].sort((a, b) => String(a.sku).localeCompare(String(b.sku)) || a.stock - b.stock);

/**
 * `GET /stock-levels` through the real system: products made in the catalog, their events carried
 * to the stock service's read model over the bus, warehouses and stock set through stock's
 * back-office GraphQL; the edge streams the feed from the stock subgraph. Rule S1 as the REST
 * client sees it, the streaming itself (many pages, one document, failures mid-way) and team
 * isolation; every response checked against the OpenAPI document.
 */
describe('GET /stock-levels', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let beta: Record<string, IssuedToken>;
  let gamma: Record<string, IssuedToken>;
  /** What acme's REST client must read (rule S1, case by case). */
  const expected: StockLevel[] = [];

  async function stockLevels(on: RunningEdge, channel = 'acme-shop', token = acme.shop!.token): Promise<EdgeResponse> {
    const res = await on.call('GET', `/v1/channels/${channel}/stock-levels`, { token });
    sys.contract.check('GET', '/stock-levels', res);
    expect(res.headers['service-api-version']).toBe('1.2.0');
    return res;
  }

  beforeAll(async () => {
    sys = await startSystem({ catalog: true });
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop']);
    beta = await seedTeam(sys, 'beta', ['shop']);
    gamma = await seedTeam(sys, 'gamma', ['shop']);

    const cases: { product: NewProduct; stock: [warehouse: 'main' | 'second' | 'closed', quantity: number][]; figure: number | 'absent' }[] = [
      { product: { sku: 'S-ACTIVE' }, stock: [['main', 5], ['second', 3], ['closed', 100]], figure: 8 },
      { product: { sku: 'S-INACTIVE', activeState: 'inactive' }, stock: [['main', 2]], figure: 2 },
      { product: { sku: 'S-PRE-ORDER', activeState: 'pre-order' }, stock: [['second', 4]], figure: 4 },
      { product: { sku: 'S-SOLD-OUT' }, stock: [['main', 0], ['second', 0]], figure: 0 },
      { product: { sku: 'S-NEVER-STOCKED' }, stock: [], figure: 0 },
      { product: { sku: 'S-CLOSED-WAREHOUSE-ONLY' }, stock: [['closed', 50]], figure: 0 },
      { product: { sku: null, name: 'No SKU' }, stock: [['main', 7]], figure: 7 },
      { product: { sku: 'S-POD', podEnabled: true, podApproved: true }, stock: [['main', 1]], figure: 10_001 },
      { product: { sku: 'S-POD-NO-STOCK', podEnabled: true, podApproved: true }, stock: [], figure: 10_000 },
      { product: { sku: 'S-POD-NOT-APPROVED', podEnabled: true, podApproved: false }, stock: [['main', 1]], figure: 1 },
      { product: { sku: 'S-POD-NOT-ENABLED', podEnabled: false, podApproved: true }, stock: [['main', 1]], figure: 1 },
      { product: { sku: 'S-DELETED' }, stock: [['main', 9]], figure: 'absent' },
    ];
    const warehouses = {
      main: await createWarehouse(sys, 'acme', 'main'),
      second: await createWarehouse(sys, 'acme', 'second'),
      closed: await createWarehouse(sys, 'acme', 'closed', false),
    };
    const made = [];
    for (const c of cases) made.push({ ...c, uuid: (await createProduct(sys, 'acme', c.product)).uuid });
    // Another team, with a SKU acme also has and plenty of stock.
    const betaMain = await createWarehouse(sys, 'beta', 'main');
    const betaProducts = [await createProduct(sys, 'beta', { sku: 'S-ACTIVE' }), await createProduct(sys, 'beta', { sku: 'BETA-ONLY' })];
    await stockCaughtUp(sys);
    for (const c of made) for (const [w, quantity] of c.stock) await setStock(sys, 'acme', c.uuid, warehouses[w], quantity);
    for (const p of betaProducts) await setStock(sys, 'beta', p.uuid, betaMain, 999);
    for (const c of made.filter((m) => m.figure === 'absent')) await deleteProduct(sys, 'acme', c.uuid);
    await stockCaughtUp(sys);
    for (const c of made) if (c.figure !== 'absent') expected.push({ sku: c.product.sku ?? null, stock: c.figure });
  }, 90_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  it('lists every non-deleted product of the team with its rule S1 figure, as one JSON document', async () => {
    const res = await stockLevels(edge);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(sorted(res.body.data)).toEqual(sorted(expected));
    // spot checks of the rule, as a client reads them
    const bySku = new Map<string | null, number>(res.body.data.map((l: StockLevel) => [l.sku, l.stock]));
    expect(bySku.get('S-INACTIVE')).toBe(2);
    expect(bySku.get('S-PRE-ORDER')).toBe(4);
    expect(bySku.get('S-SOLD-OUT')).toBe(0);
    expect(bySku.get(null)).toBe(7);
    expect(bySku.get('S-POD')).toBe(10_001);
    expect(bySku.has('S-DELETED')).toBe(false);
  });

  it('a channel token never sees another team stock, nor another team its', async () => {
    const mine = await stockLevels(edge);
    expect(mine.body.data.find((l: StockLevel) => l.sku === 'S-ACTIVE')).toEqual({ sku: 'S-ACTIVE', stock: 8 });
    expect(mine.body.data.some((l: StockLevel) => l.sku === 'BETA-ONLY' || l.stock === 999)).toBe(false);
    const theirs = await stockLevels(edge, 'beta-shop', beta.shop!.token);
    expect(sorted(theirs.body.data)).toEqual([
      { sku: 'BETA-ONLY', stock: 999 },
      { sku: 'S-ACTIVE', stock: 999 },
    ]);
  });

  it('a team without products gets an empty list', async () => {
    const res = await stockLevels(edge, 'gamma-shop', gamma.shop!.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('the same document when the pages go through the gateway (no STOCK_URL)', async () => {
    const viaGateway = await sys.startEdge({ STOCK_URL: '' });
    try {
      const res = await stockLevels(viaGateway);
      expect(res.status).toBe(200);
      expect(sorted(res.body.data)).toEqual(sorted(expected));
    } finally {
      await viaGateway.close();
    }
  });

  describe('streamed from many feed pages', () => {
    let tap: TappedUpstream;
    let paged: RunningEdge;

    beforeAll(async () => {
      tap = await tapUpstream(sys.stockUrl!);
      paged = await sys.startEdge({ STOCK_URL: tap.url, STOCK_LEVELS_PAGE_SIZE: '2' });
    });
    afterAll(async () => {
      await paged?.close();
      await tap?.close();
    });
    beforeEach(() => tap.reset());

    it('reads the feed 2 products at a time and sends one document with every product exactly once', async () => {
      const res = await stockLevels(paged);
      expect(res.status).toBe(200);
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(tap.requests).toBe(Math.ceil(expected.length / 2));
      expect(res.body.data).toHaveLength(expected.length);
      expect(sorted(res.body.data)).toEqual(sorted(expected));
      // one page size or another, the same list in the same order
      expect(res.body).toEqual((await stockLevels(edge)).body);
    });

    it('page sizes that divide the list exactly and a single-product page give the same document', async () => {
      const reference = (await stockLevels(edge)).body;
      for (const size of ['1', String(expected.length)]) {
        const other = await sys.startEdge({ STOCK_URL: sys.stockUrl!, STOCK_LEVELS_PAGE_SIZE: size });
        try {
          expect((await stockLevels(other)).body).toEqual(reference);
        } finally {
          await other.close();
        }
      }
    });

    it('a stream that outlives one identity token asks for a fresh one for its later pages, and ends complete', async () => {
      // Tokens live 5 s (renewed after 2.5 s); 11 pages at 700 ms each take about 8 s.
      const shortLived = await sys.startEdge({ STOCK_URL: tap.url, STOCK_LEVELS_PAGE_SIZE: '1', CHANNEL_JWT_TTL_SECONDS: '5' });
      try {
        tap.delayMs = 700;
        const before = tap.authorizations.length;
        const res = await stockLevels(shortLived);
        expect(res.status).toBe(200);
        expect(sorted(res.body.data)).toEqual(sorted(expected));
        // The later pages went with another identity token than the first.
        const sent = tap.authorizations.slice(before);
        expect(sent.length).toBeGreaterThanOrEqual(11);
        expect(new Set(sent).size).toBeGreaterThan(1);
      } finally {
        tap.delayMs = 0;
        await shortLived.close();
      }
    }, 30_000);

    it('a client that goes away mid-stream stops the reading of further pages', async () => {
      const onePerPage = await sys.startEdge({ STOCK_URL: tap.url, STOCK_LEVELS_PAGE_SIZE: '1' });
      try {
        tap.delayMs = 200; // 11 pages: more than 2 s to read them all
        const res = await request(`${onePerPage.url}/v1/channels/acme-shop/stock-levels`, { headers: { authorization: `Bearer ${acme.shop!.token}` } });
        expect(res.statusCode).toBe(200);
        for await (const _chunk of res.body) break; // the first chunk, then the client hangs up
        await new Promise((r) => setTimeout(r, 2500));
        // the page in flight when the client left, and at most the one fetched ahead with it
        expect(tap.requests).toBeLessThanOrEqual(4);
        expect(onePerPage.logs.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
        tap.delayMs = 0;
        expect((await stockLevels(onePerPage)).status).toBe(200);
      } finally {
        await onePerPage.close();
      }
      // Starts an edge and waits 2.5 s on purpose: jest's 5 s default is too tight on a busy
      // machine, and a test cut off there leaves its last request running into the next test.
    }, 30_000);

    it('a failure of the first page is an ordinary 500 problem with a reference', async () => {
      tap.failRequest(1);
      const res = await stockLevels(paged);
      expect(res.status).toBe(500);
      expect(res.contentType).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 500, title: 'Internal Server Error', detail: INTERNAL_DETAIL, reference: expect.any(String) });
      expect(paged.logs.lines.some((l) => l.reference === res.body.reference && l.upstream === 'stock')).toBe(true);
    });

    it('a failure after the response started aborts the connection: the client never gets a complete-looking document', async () => {
      tap.failRequest(3);
      const res = await request(`${paged.url}/v1/channels/acme-shop/stock-levels`, { headers: { authorization: `Bearer ${acme.shop!.token}` } });
      // The status and the first pages were already sent.
      expect(res.statusCode).toBe(200);
      let text = '';
      let failure: unknown;
      try {
        for await (const chunk of res.body) text += chunk.toString();
      } catch (err) {
        failure = err;
      }
      expect(failure).toBeDefined();
      expect(text.startsWith('{"data":[')).toBe(true);
      expect(() => JSON.parse(text)).toThrow();
      expect(tap.requests).toBe(3);
      const logged = paged.logs.lines.find((l) => l.msg === 'streamed response failed after its first chunk; connection aborted');
      expect(logged).toMatchObject({ level: 50, upstream: 'stock', reference: expect.any(String), path: '/v1/channels/acme-shop/stock-levels' });
      // and the edge goes on serving
      tap.reset();
      expect((await stockLevels(paged)).status).toBe(200);
    });
  });
});
