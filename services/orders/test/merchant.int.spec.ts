import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { composeServices } from '@apollo/composition';
import express from 'express';
import { parse, Source, type DocumentNode } from 'graphql';
import { ProductUpdated } from '@pf/platform/events/catalog';
import { TOPICS } from '@pf/platform/events/topics';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import { eventually, uniqueSuffix } from '@pf/platform/testing/infra';
import { createGateway, type Gateway } from '../../../gateway/src/gateway';
import { readSubgraphList } from '../../../gateway/src/subgraphs';
import { createPrismaClient } from '../src';
import { backfillConfirmedAt } from '../src/use-cases/backfill-confirmed-at';
import { AMEND_ORDER, CONFIRM_ORDER, createTeam, ENTER_ORDER, IMPORT_ORDERS, jwtOptions, orderInput, REJECT_ADDRESS, startSystem, type OrdersSystem, type TeamFixture } from './harness';

const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

/** The supergraph composed now from the subgraphs' SDL files, as `npm run compose` writes it. */
function composeSupergraph(): string {
  const result = composeServices(
    readSubgraphList().map((s) => ({
      name: s.name,
      url: s.url,
      typeDefs: {
        kind: 'Document',
        definitions: s.sdl.flatMap((file) => parse(new Source(readFileSync(path.join(repositoryRoot, file), 'utf8'), file)).definitions),
      } as DocumentNode,
    })),
  );
  if (result.errors) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.supergraphSdl;
}

describe('merchant side: entered and imported orders, dashboards through the supergraph, read models, backfill', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  let gateway: Gateway;
  let gatewayServer: http.Server;
  let gatewayUrl: string;

  beforeAll(async () => {
    s = await startSystem();
    t = await createTeam(s);
    gateway = await createGateway({
      supergraphSdl: composeSupergraph(),
      subgraphUrls: { accounts: s.urls.accounts, catalog: s.urls.catalog, stock: s.urls.stock, orders: s.urls.orders },
      jwt: jwtOptions,
      logger: createLogger('gateway-test', 'silent'),
    });
    const app = express();
    app.use(gateway.app);
    gatewayServer = http.createServer(app);
    gatewayUrl = `http://127.0.0.1:${await listen(gatewayServer, 0, '127.0.0.1')}/graphql`;
  }, 60_000);
  afterAll(async () => {
    if (gatewayServer) await closeServer(gatewayServer);
    await gateway?.stop();
    await s?.close();
  }, 30_000);

  it('enterOrder files the order under the Standard channel (origin merchant-app) and refuses unmatched SKUs', async () => {
    const o = (await s.ok<any>(t.backOffice, ENTER_ORDER, { input: orderInput(`m-${uniqueSuffix()}`, [['SKU-A', 1]], { reserve: true }) })).enterOrder;
    expect(o).toMatchObject({ origin: 'merchant-app', channelId: `${t.teamCode}-standard`, status: 'draft', stockHeld: true });
    const bad = await s.problem(t.backOffice, ENTER_ORDER, { input: orderInput('m-bad', [['SKU-A', 1], ['NOPE', 1]]) });
    // Named as the mutation's argument, as every back-office refusal (a NUL in a field is named so by the platform too).
    expect(bad.violations).toEqual([{ property: 'input.orderLines[1].product.sku', message: expect.any(String) }]);
    const long = await s.problem(t.backOffice, ENTER_ORDER, { input: orderInput('m-long', [['SKU-A', 1]], { shippingDetails: { firstName: 'x'.repeat(101), city: 'Leeds', address1: '1 Road', country: { code: 'GB' } } }) });
    expect(long.violations?.map((v: any) => v.property)).toEqual(['input.shippingDetails.firstName']);
    const nul = await s.problem(t.backOffice, ENTER_ORDER, { input: orderInput('m-nul', [['SKU-A', 1]], { shippingDetails: { firstName: 'a\u0000b', city: 'Leeds', address1: '1 Road', country: { code: 'GB' } } }) });
    expect(nul.violations?.map((v: any) => v.property)).toEqual(['input.shippingDetails.firstName']);
    // A schedule is a time ahead, as scheduleOrder asks.
    const past = await s.problem(t.backOffice, ENTER_ORDER, { input: orderInput('m-past', [['SKU-A', 1]], { scheduledAt: new Date(Date.now() - 60_000).toISOString() }) });
    expect(past.violations).toEqual([{ property: 'input.scheduledAt', message: 'Must be in the future.' }]);
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    expect((await s.ok<any>(t.backOffice, ENTER_ORDER, { input: orderInput(`m-${uniqueSuffix()}`, [['SKU-A', 1]], { scheduledAt: ahead }) })).enterOrder.scheduledAt).toBe(ahead);
    const { rows: refused } = await s.pool.query(`SELECT count(*)::int AS n FROM orders.orders WHERE team_code = $1 AND order_number IN ('m-bad', 'm-long', 'm-nul', 'm-past')`, [t.teamCode]);
    expect(refused[0].n).toBe(0);
    const outbox = (await s.outboxAfter()).filter((e) => e.event_key === o.uuid);
    expect(outbox.map((e) => [e.envelope.type, e.envelope.payload.order.origin])).toEqual([['order.created', 'merchant-app']]);
    // Amending it is as strict: an unmatched SKU is refused, not dropped.
    const amend = await s.problem(t.backOffice, AMEND_ORDER, { uuid: o.uuid, input: { orderLines: [{ lineNumber: 1, product: { sku: 'SKU-A' }, quantity: 2 }, { lineNumber: 2, product: { sku: 'NOPE' }, quantity: 1 }] } });
    expect(amend.violations).toEqual([{ property: 'input.orderLines[1].product.sku', message: expect.any(String) }]);
  });

  it('importOrders writes every order onto a channel of the team (origin import), or none, naming orders[i]', async () => {
    const channelId = `${t.teamCode}-other`;
    const ok = (await s.ok<any>(t.backOffice, IMPORT_ORDERS, { channelId, orders: [orderInput('i-1'), orderInput('i-2', [['SKU-B', 2], ['NOPE', 1]])] })).importOrders.orders;
    expect(ok.map((o: any) => [o.origin, o.channelId, o.orderNumber, o.orderLines.length])).toEqual([
      ['import', channelId, 'i-1', 1],
      ['import', channelId, 'i-2', 1],
    ]);
    const bad = await s.problem(t.backOffice, IMPORT_ORDERS, {
      channelId,
      orders: [orderInput('i-3'), { ...orderInput('i-4', [['x'.repeat(256), 1]]), strictSkus: true }],
    });
    expect(bad.violations?.map((v) => v.property)).toEqual(['orders[1].orderLines[0].product.sku']);
    const { rows } = await s.pool.query(`SELECT count(*)::int AS n FROM orders.orders WHERE order_number = 'i-3'`);
    expect(rows[0].n).toBe(0);
    const foreign = await s.problem(t.backOffice, IMPORT_ORDERS, { channelId: 'someone-else', orders: [orderInput('i-5')] });
    expect(foreign.violations?.[0]?.property).toBe('channelId');
  });

  it('a number names one entered or imported order per channel: a repeated entry or import is a conflict naming each number, and writes nothing', async () => {
    const number = `dup-${uniqueSuffix()}`;
    const first = (await s.ok<any>(t.backOffice, ENTER_ORDER, { input: orderInput(number) })).enterOrder;
    const again = await s.problem(t.backOffice, ENTER_ORDER, { input: orderInput(number) });
    expect(again).toMatchObject({ problemType: 'conflict', extensions: { orderNumbersTaken: [{ property: 'input.orderNumber', orderNumber: number, orderUuid: first.uuid }] } });
    expect(again.detail).toContain('input.orderNumber');

    const channelId = `${t.teamCode}-other`;
    const batch = [orderInput(`${number}-a`), orderInput(`${number}-b`)];
    // Named by their place in the batch as sent, an order refused for another reason before them included.
    const twice = await s.problem(t.backOffice, IMPORT_ORDERS, { channelId, orders: [orderInput(''), ...batch, orderInput(`${number}-a`)] });
    expect(twice.violations).toEqual([
      { property: 'orders[0].orderNumber', message: expect.any(String) },
      { property: 'orders[3].orderNumber', message: 'Also given to orders[1].' },
    ]);
    // The same batch sent again, as after a lost answer: refused whole, naming each order already there.
    const imported = (await s.ok<any>(t.backOffice, IMPORT_ORDERS, { channelId, orders: batch })).importOrders.orders;
    const resent = await s.problem(t.backOffice, IMPORT_ORDERS, { channelId, orders: [orderInput(`${number}-c`), ...batch] });
    expect(resent).toMatchObject({
      problemType: 'conflict',
      extensions: {
        orderNumbersTaken: [
          { property: 'orders[1].orderNumber', orderNumber: `${number}-a`, orderUuid: imported[0].uuid },
          { property: 'orders[2].orderNumber', orderNumber: `${number}-b`, orderUuid: imported[1].uuid },
        ],
      },
    });
    // Another channel, and the API's own numbers, are other namespaces.
    expect((await s.ok<any>(t.backOffice, IMPORT_ORDERS, { channelId: `${t.teamCode}-standard`, orders: [orderInput(`${number}-a`)] })).importOrders.orders).toHaveLength(1);
    const { rows } = await s.pool.query(`SELECT channel_id, count(*)::int AS n FROM orders.orders WHERE order_number LIKE $1 GROUP BY channel_id ORDER BY channel_id`, [`${number}%`]);
    expect(rows).toEqual([
      { channel_id: channelId, n: 2 },
      { channel_id: `${t.teamCode}-standard`, n: 2 },
    ]);
  });

  it('concurrent imports of one batch write it once', async () => {
    const channelId = `${t.teamCode}-other`;
    const number = `race-${uniqueSuffix()}`;
    // The same numbers in another order in every other request: the locks are taken sorted, so none deadlocks.
    const batches = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? [orderInput(`${number}-1`), orderInput(`${number}-2`)] : [orderInput(`${number}-2`), orderInput(`${number}-1`)]));
    const answers = await Promise.all(batches.map((orders) => s.gql<any>(s.urls.orders, t.backOffice, IMPORT_ORDERS, { channelId, orders })));
    const accepted = answers.filter((a) => !a.errors);
    expect(accepted).toHaveLength(1);
    expect(answers.filter((a) => a.errors).map((a) => a.errors![0]!.extensions?.code)).toEqual(Array(11).fill('conflict'));
    const { rows } = await s.pool.query(`SELECT count(*)::int AS n FROM orders.orders WHERE order_number LIKE $1`, [`${number}-%`]);
    expect(rows[0].n).toBe(2);
  });

  it('dashboards query orders across channels with each line\'s product and stock through the supergraph', async () => {
    const o = (await s.ok<any>(t.shop, `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { uuid } }`, { input: orderInput(`g-${uniqueSuffix()}`, [['SKU-C', 2]]) })).createOrder;
    await s.ok(t.shop, CONFIRM_ORDER, { uuid: o.uuid });
    const res = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signIdentity(t.backOffice, jwtOptions)}` },
      body: JSON.stringify({
        query: `query ($uuid: ID!) { order(uuid: $uuid) { uuid status origin channelId
          orderLines { lineNumber product { sku } catalogProduct { uuid sku name activeState stock } }
          fulfilments { supplierLocation { code } status }
          statusHistory { from to actor } } }`,
        variables: { uuid: o.uuid },
      }),
    });
    const body = (await res.json()) as any;
    expect(body.errors).toBeUndefined();
    expect(body.data.order).toMatchObject({
      uuid: o.uuid,
      status: 'queued',
      origin: 'api',
      orderLines: [{ lineNumber: 1, product: { sku: 'SKU-C' }, catalogProduct: { uuid: t.products['SKU-C'], sku: 'SKU-C', name: 'Product SKU-C', activeState: 'active', stock: 18 } }],
      fulfilments: [{ supplierLocation: { code: 'berlin' }, status: 'draft' }],
      statusHistory: [
        { from: null, to: 'draft' },
        { from: 'draft', to: 'queued' },
      ],
    });
  });

  it('a page of orders carries each order\'s own status history (loaded for the page at once)', async () => {
    const number = `h-${uniqueSuffix()}`;
    const drafts = [];
    for (const i of [1, 2, 3]) drafts.push((await s.ok<any>(t.shop, `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { uuid } }`, { input: orderInput(`${number}-${i}`, [['SKU-A', 1]]) })).createOrder);
    await s.ok(t.shop, CONFIRM_ORDER, { uuid: drafts[1].uuid });
    const page = (await s.ok<any>(t.backOffice, `query { orders(perPage: 100) { items { uuid statusHistory { from to } } } }`)).orders.items;
    const historyOf = (uuid: string) => page.find((o: any) => o.uuid === uuid).statusHistory;
    expect(historyOf(drafts[0].uuid)).toEqual([{ from: null, to: 'draft' }]);
    expect(historyOf(drafts[1].uuid)).toEqual([{ from: null, to: 'draft' }, { from: 'draft', to: 'queued' }]);
    expect(historyOf(drafts[2].uuid)).toEqual([{ from: null, to: 'draft' }]);
  });

  it('read models: a replayed or older product event changes nothing', async () => {
    const uuid = t.products['SKU-D']!;
    const current = (await s.pool.query('SELECT sku, version FROM orders.product WHERE uuid = $1', [uuid])).rows[0];
    const stale = ProductUpdated.create(uuid, {
      productUuid: uuid,
      teamCode: t.teamCode,
      sku: 'OLD-SKU',
      name: 'old',
      activeState: 'active',
      podEnabled: false,
      podApproved: false,
      deleted: false,
      version: current.version,
    });
    const newer = ProductUpdated.create(uuid, { ...stale.payload, sku: 'SKU-D2', version: current.version + 1 });
    await s.bus.publish([
      { topic: TOPICS.products, event: stale },
      { topic: TOPICS.products, event: newer },
      { topic: TOPICS.products, event: stale },
    ]);
    await eventually(async () => {
      const { rows } = await s.pool.query(`SELECT count(*)::int AS n FROM orders.inbox_event WHERE event_id = ANY($1)`, [[stale.id, newer.id]]);
      return rows[0].n === 2 ? true : undefined;
    });
    // Redelivered: the inbox already has it.
    await s.bus.publish([{ topic: TOPICS.products, event: newer }]);
    const marker = ProductUpdated.create(uuid, { ...newer.payload, version: current.version + 2 });
    await s.bus.publish([{ topic: TOPICS.products, event: marker }]);
    await eventually(async () => ((await s.pool.query('SELECT version FROM orders.product WHERE uuid = $1', [uuid])).rows[0].version === current.version + 2 ? true : undefined));
    expect((await s.pool.query('SELECT sku FROM orders.product WHERE uuid = $1', [uuid])).rows[0].sku).toBe('SKU-D2');
  });

  describe('confirmedAt backfill', () => {
    async function legacyOrder(history: [string | null, string, string, string | null][], status: string, confirmedAt: string | null = null): Promise<string> {
      const uuid = (await s.pool.query('SELECT gen_random_uuid()::text AS u')).rows[0].u as string;
      await s.pool.query(
        `INSERT INTO orders.orders (uuid, team_code, channel_id, origin, order_number, print_trail_order_number, status, fulfillable_from, confirmed_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'api', $4, $4, $5, '2026-09-01T00:00:00Z', $6, '2026-09-01T00:00:00Z', '2026-09-30T00:00:00Z')`,
        [uuid, t.teamCode, `${t.teamCode}-shop`, `legacy-${uniqueSuffix()}`, status, confirmedAt],
      );
      for (const [from, to, at, trigger] of history) {
        await s.pool.query(`INSERT INTO orders.order_status_change (order_uuid, from_status, to_status, at, actor, trigger) VALUES ($1, $2, $3, $4, 'legacy', $5)`, [uuid, from, to, at, trigger]);
      }
      return uuid;
    }
    const confirmedAtOf = async (uuid: string) => (await s.pool.query('SELECT confirmed_at, updated_at, version FROM orders.orders WHERE uuid = $1', [uuid])).rows[0];

    it('sets confirmedAt of orders confirmed before 19 October 2026 from their history; idempotent; the command runs from dist', async () => {
      const queued = await legacyOrder([[null, 'draft', '2026-09-01T10:00:00Z', null], ['draft', 'queued', '2026-09-01T11:00:00Z', null], ['queued', 'processing', '2026-09-01T11:15:00Z', null]], 'processing');
      const cancelled = await legacyOrder([[null, 'draft', '2026-09-02T10:00:00Z', null], ['draft', 'queued', '2026-09-02T11:00:00Z', null], ['queued', 'cancelled', '2026-09-03T11:00:00Z', null]], 'cancelled');
      const neverConfirmed = await legacyOrder([[null, 'draft', '2026-09-02T10:00:00Z', null], ['draft', 'cancelled', '2026-09-03T10:00:00Z', null]], 'cancelled');
      const rejected = await legacyOrder([[null, 'draft', '2026-09-02T10:00:00Z', null], ['draft', 'queued', '2026-09-02T11:00:00Z', null], ['queued', 'holding', '2026-09-02T12:00:00Z', 'reject-shipping-address']], 'holding');
      const already = await legacyOrder([[null, 'draft', '2026-09-02T10:00:00Z', null], ['draft', 'queued', '2026-09-02T11:00:00Z', null]], 'queued', '2026-09-02T11:00:05Z');
      const before = await confirmedAtOf(queued);

      const prisma = createPrismaClient(s.db.url, 2);
      try {
        const first = await backfillConfirmedAt(prisma);
        expect(first.backfilled).toBeGreaterThanOrEqual(2);
        expect((await confirmedAtOf(queued)).confirmed_at.toISOString()).toBe('2026-09-01T11:00:00.000Z');
        expect((await confirmedAtOf(cancelled)).confirmed_at.toISOString()).toBe('2026-09-02T11:00:00.000Z');
        expect((await confirmedAtOf(neverConfirmed)).confirmed_at).toBeNull();
        expect((await confirmedAtOf(rejected)).confirmed_at).toBeNull();
        expect((await confirmedAtOf(already)).confirmed_at.toISOString()).toBe('2026-09-02T11:00:05.000Z');
        // A data correction: updatedAt and version untouched.
        expect((await confirmedAtOf(queued)).updated_at).toEqual(before.updated_at);
        expect((await confirmedAtOf(queued)).version).toBe(before.version);
        expect((await backfillConfirmedAt(prisma)).backfilled).toBe(0);
      } finally {
        await prisma.$disconnect();
      }

      const command = path.resolve(__dirname, '..', 'dist', 'backfill-confirmed-at.js');
      expect(existsSync(command)).toBe(true); // built by `npm run build` / scripts/test.sh before the tests
      const late = await legacyOrder([[null, 'draft', '2026-10-01T10:00:00Z', null], ['draft', 'scheduled', '2026-10-02T10:00:00Z', null]], 'scheduled');
      const { stdout } = await promisify(execFile)(process.execPath, [command], { env: { ...process.env, DATABASE_URL: s.db.url, LOG_LEVEL: 'info' } });
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ msg: 'confirmedAt backfill done', backfilled: 1 });
      expect((await confirmedAtOf(late)).confirmed_at.toISOString()).toBe('2026-10-02T10:00:00.000Z');
    }, 60_000);

    it('an address rejected on a holding order not backfilled yet is in its history, so the backfill leaves it unconfirmed', async () => {
      // Held after its confirmation, before triggers were recorded: the backfill would confirm it.
      const held = await legacyOrder([[null, 'draft', '2026-09-01T09:00:00Z', null], ['draft', 'queued', '2026-09-01T10:00:00Z', null], ['queued', 'holding', '2026-09-05T10:00:00Z', null]], 'holding');
      const rejected = (await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: held, reason: 'no such street' })).rejectShippingAddress;
      expect(rejected).toMatchObject({ status: 'holding', confirmedAt: null });
      const history = await s.pool.query(`SELECT from_status, to_status, trigger, reason FROM orders.order_status_change WHERE order_uuid = $1 ORDER BY at DESC LIMIT 1`, [held]);
      expect(history.rows[0]).toEqual({ from_status: 'holding', to_status: 'holding', trigger: 'reject-shipping-address', reason: 'no such street' });
      const prisma = createPrismaClient(s.db.url, 2);
      try {
        await backfillConfirmedAt(prisma);
      } finally {
        await prisma.$disconnect();
      }
      expect((await confirmedAtOf(held)).confirmed_at).toBeNull();
    }, 60_000);
  });
});
