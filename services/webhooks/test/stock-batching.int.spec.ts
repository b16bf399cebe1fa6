import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ProductCreated, ProductUpdated, type ProductState } from '@pf/platform/events/catalog';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, deleteTestTopics, eventually, testInfra, uniqueSuffix, type TestDatabase } from '@pf/platform/testing/infra';
import { stockService } from '../../stock/src';
import { WEBHOOKS_MIGRATIONS_DIR } from '../src';
import { jwt, v4, WebhooksHarness } from './support/harness';
import { createTestCertificate, TestReceiver, type TestCertificate } from './support/receiver';

const HOST = 'stock.hooks-test.dev';
/**
 * Long enough that 100 GraphQL mutations fit in one window on a loaded two-core machine (20 s
 * was not: a CI run with other work on the machine saw the window close after 80 of them).
 */
const WINDOW_SECONDS = 40;

/**
 * Stock batching against the REAL stock service (same database, other schema; the same Kafka broker): stock
 * changes made through its GraphQL API reach the webhooks service as `stock-level.changed`
 * events through stock's outbox; when the window closes, the webhooks service reads the figures
 * from the stock subgraph (a direct call with a service JWT) and sends one webhook per channel.
 */
describe('stock-level-updated batching', () => {
  let cert: TestCertificate;
  let receiver: TestReceiver;
  let db: TestDatabase;
  let bus: KafkaEventBus;
  const topicPrefix = `pf-test-stock-batching-${uniqueSuffix()}.`;
  let stock: ServiceInstance;
  let stockServer: http.Server;
  let stockUrl: string;
  let h: WebhooksHarness;
  const team = `k${uniqueSuffix()}`;
  const merchant: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };

  async function stockGraphql<T>(query: string, variables: Record<string, unknown>, identity: Identity = merchant): Promise<T> {
    const res = await fetch(stockUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signIdentity(identity, jwt)}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T; errors?: unknown[] };
    if (!body.data || body.errors) throw new Error(`stock answered ${JSON.stringify(body.errors)}`);
    return body.data;
  }

  beforeAll(async () => {
    cert = createTestCertificate([HOST]);
    receiver = await new TestReceiver(cert).start();
    db = await createTestDatabase([
      { schema: 'stock', migrationsDir: stockService.migrationsDir! },
      { schema: 'webhooks', migrationsDir: WEBHOOKS_MIGRATIONS_DIR },
    ]);
    const logger = createLogger('stock-batching-test', process.env.TEST_LOG_LEVEL ?? 'silent');
    // The real broker between the two services, as deployed.
    bus = new KafkaEventBus({ brokers: testInfra.kafkaBrokers, clientId: 'stock-batching-test', topicPrefix, logger, topicDefaults: { numPartitions: 1, replicationFactor: 1 } });
    stock = await stockService.create({ databaseUrl: db.url, bus, jwt, logger, env: { NODE_ENV: 'test' } });
    await stock.start();
    const app = express();
    app.use(stock.app);
    stockServer = http.createServer(app);
    stockUrl = `http://127.0.0.1:${await listen(stockServer, 0, '127.0.0.1')}/graphql`;
    h = await WebhooksHarness.start({
      db,
      bus,
      env: {
        WEBHOOK_STOCK_WINDOW_SECONDS: String(WINDOW_SECONDS),
        STOCK_URL: stockUrl,
        WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
        WEBHOOK_EXTRA_CA: cert.certPath,
      },
    });
    h.dns.set(HOST, [v4('127.0.0.1')]);
  }, 60_000);
  afterAll(async () => {
    await h?.stopService();
    if (stockServer) await closeServer(stockServer);
    await stock?.stop();
    await bus?.close();
    await deleteTestTopics(topicPrefix).catch(() => undefined);
    await db?.drop();
    await receiver?.stop();
    cert?.remove();
  }, 60_000);

  it('100 stock changes inside one window: exactly one webhook per channel with a URL, with the figures of GET /stock-levels at sending time', async () => {
    // Channels: two with URLs, one without, one inactive with a URL, and the Standard channel.
    const channels: Record<string, string> = {};
    for (const code of ['alpha', 'beta', 'nourl', 'paused']) channels[code] = await h.seedChannel(team, code);
    await h.seedChannel(team, 'standard', { standard: true });
    for (const code of ['alpha', 'beta', 'paused']) receiver.trust(code, await h.register(channels[code]!, `https://${HOST}:${receiver.port}/stock/{notificationType}`));
    await h.setChannelActive(team, 'paused', false);

    // 20 products of the team in the stock service's read model (as the catalog's events put them there).
    const products: ProductState[] = Array.from({ length: 20 }, (_, i) => ({
      productUuid: randomUUID(),
      teamCode: team,
      sku: i === 0 ? null : `SKU/${i}`,
      name: `Product ${i}`,
      activeState: i % 3 === 0 ? 'inactive' : 'active',
      podEnabled: i === 1,
      podApproved: i === 1,
      deleted: false,
      version: 1,
      dimensions: null,
    }));
    await bus.publish(products.map((p) => ({ topic: ProductCreated.topic, event: ProductCreated.create(p.productUuid, p) })));
    await eventually(async () => ((await h.sql.query('SELECT count(*)::int AS n FROM stock.product WHERE team_code = $1', [team])).rows[0].n === 20 ? true : undefined));
    const { createWarehouse } = await stockGraphql<{ createWarehouse: { id: string } }>(
      'mutation($i: CreateWarehouseInput!) { createWarehouse(input: $i) { id } }',
      { i: { code: 'london', name: 'London', countryCode: 'GB' } },
    );

    // 100 changes: five adjustments of each product, four at a time.
    const changes = products.flatMap((p, i) => Array.from({ length: 5 }, (_, k) => ({ productUuid: p.productUuid, delta: i + k + 1 })));
    const started = Date.now();
    for (let i = 0; i < changes.length; i += 4) {
      await Promise.all(
        changes.slice(i, i + 4).map((c) =>
          stockGraphql('mutation($i: AdjustStockInput!) { adjustStock(input: $i) { onHand } }', {
            i: { productUuid: c.productUuid, warehouseId: createWarehouse.id, delta: c.delta, reason: 'count' },
          }),
        ),
      );
    }
    const events = await eventually(async () => {
      const { rows } = await h.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM inbox_event WHERE consumer = 'webhooks.stock'");
      return rows[0]!.n >= 100 ? rows[0]!.n : undefined;
    });
    // 100, not 120: the products' first figures (stock-level.revised, what the catalog set) are not
    // stock movements and are never pushed, so they took no inbox row and opened no window.
    expect(events).toBe(100);
    // All 100 joined one window, still open: the first change opened it, the rest came before it closed.
    const windows = await h.sql.query<{ status: string; products: number }>(
      'SELECT status, (SELECT count(*)::int FROM stock_window_product p WHERE p.window_id = w.id) AS products FROM stock_window w WHERE team_code = $1',
      [team],
    );
    expect(windows.rows).toEqual([{ status: 'open', products: 20 }]);
    expect(receiver.of('stock-level-updated')).toHaveLength(0);

    // One of them is deleted before the window closes: GET /stock-levels no longer lists it.
    const gone = products[19]!;
    await bus.publish([{ topic: ProductUpdated.topic, event: ProductUpdated.create(gone.productUuid, { ...gone, deleted: true, version: 2 }) }]);
    await eventually(async () => ((await h.sql.query('SELECT deleted FROM stock.product WHERE uuid = $1', [gone.productUuid])).rows[0]?.deleted ? true : undefined));

    const arrived = await eventually(() => (receiver.of('stock-level-updated').length >= 2 ? receiver.of('stock-level-updated') : undefined), (WINDOW_SECONDS + 10) * 1000);
    // The feed as GET /stock-levels reads it, at sending time (nothing changed since).
    const feed = await stockGraphql<{ stockLevels: { items: { productUuid: string; sku: string | null; stock: number }[] } }>(
      'query($t: ID) { stockLevels(teamCode: $t, first: 100) { items { productUuid sku stock } } }',
      { t: team },
    );
    const expected = new Map(feed.stockLevels.items.map((i) => [i.productUuid, i]));
    expect(expected.size).toBe(19);
    expect(expected.get(products[1]!.productUuid)!.stock).toBeGreaterThanOrEqual(10_000); // print on demand

    await new Promise((r) => setTimeout(r, 1000));
    const got = receiver.of('stock-level-updated');
    expect(got.map((r) => r.json.channelCode).sort()).toEqual(['alpha', 'beta']);
    for (const r of got) {
      expect(r.verifiedWith).toBe(r.json.channelCode);
      expect(r.path).toBe('/stock/stock-level-updated');
      expect(Object.keys(r.json)).toEqual(['notificationType', 'tenantCode', 'channelCode', 'changedAt', 'products', 'message']);
      // 20 changed: one deleted since, one without a SKU (the payload's sku is a string) are left out.
      expect(r.json).toMatchObject({ tenantCode: team, message: 'Stock levels of 18 products have changed' });
      const listed = r.json.products as { sku: string; productUuid: string; stock: number }[];
      expect(listed).toHaveLength(18);
      expect(listed.some((p) => p.productUuid === gone.productUuid)).toBe(false);
      expect(listed.some((p) => p.productUuid === products[0]!.productUuid)).toBe(false);
      for (const p of listed) expect(typeof p.sku).toBe('string');
      for (const p of listed) {
        expect(p).toEqual({ sku: expected.get(p.productUuid)!.sku, productUuid: p.productUuid, stock: expected.get(p.productUuid)!.stock });
      }
      expect(new Date(String(r.json.changedAt)).getTime()).toBeGreaterThanOrEqual(started - 1000);
    }
    expect(arrived.length).toBe(2);

    // The next change opens the next window: again one per channel, listing only what changed in it.
    await stockGraphql('mutation($i: AdjustStockInput!) { adjustStock(input: $i) { onHand } }', {
      i: { productUuid: products[5]!.productUuid, warehouseId: createWarehouse.id, delta: -1, reason: 'damaged' },
    });
    const second = await eventually(() => (receiver.of('stock-level-updated').length >= 4 ? receiver.of('stock-level-updated').slice(2) : undefined), (WINDOW_SECONDS + 10) * 1000);
    for (const r of second) expect((r.json.products as { productUuid: string }[]).map((p) => p.productUuid)).toEqual([products[5]!.productUuid]);
    // A window at most once per channel: the two sends were a window apart.
    const firstAt = Math.min(...got.map((r) => r.at));
    const secondAt = Math.min(...second.map((r) => r.at));
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000 - 500);
  }, 200_000);
});
