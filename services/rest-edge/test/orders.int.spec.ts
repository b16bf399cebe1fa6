import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import {
  fulfilmentProgress,
  GB_ADDRESS,
  GB_ADDRESS_RESOURCE,
  lines,
  orderAction,
  orderHolds,
  ordersApi,
  ordersCaughtUp,
  seedCatalog,
  UUID_PATTERN,
  warehouseStock,
  type OrdersApi,
  type SeededCatalog,
} from './support/orders';
import { encodeOrderCursor } from '../src/domain/order-cursor';
import { tapUpstream, type TappedUpstream } from './support/proxy';
import { closeAgents, seedTeam, startSystem, type EdgeResponse, type IssuedToken, type RunningEdge, type System } from './support/system';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
const UUID = expect.stringMatching(UUID_PATTERN);
const ORDER_NOT_FOUND = { type: `${PROBLEM_TYPE_BASE}not-found`, title: 'Not Found', status: 404, detail: 'This order could not be found.' };

/**
 * The order endpoints through the real system (edge -> orders subgraph, as deployed with
 * ORDERS_URL, and edge -> gateway -> orders without it; catalog, stock and accounts subgraphs on Postgres; the orders service's read models fed over the bus), data set up
 * the way a merchant does it (back-office GraphQL). Every response is checked against the OpenAPI
 * document; bodies are compared whole.
 */
describe('the order endpoints', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let catalog: SeededCatalog;
  let api: OrdersApi;
  /** Between the orders service and the stock subgraph, to make the stock service fail. */
  let stockTap: TappedUpstream;
  let n = 0;
  /** A fresh order number per use, so tests stay independent within the suite. */
  const fresh = (prefix = 'O') => `${prefix}-${++n}-${Date.now().toString(36)}`;

  const product = (sku: string) => ({ sku, uuid: catalog.products[sku]!.uuid });

  async function create(body: Record<string, unknown>): Promise<EdgeResponse> {
    return api.call('POST', '/orders', { body });
  }
  async function get(uuid: string): Promise<EdgeResponse> {
    return api.call('GET', `/orders/${uuid}`);
  }
  async function confirm(uuid: string, body: unknown = {}): Promise<EdgeResponse> {
    return api.call('PUT', `/orders/${uuid}/confirm`, { body });
  }

  /** A draft order shipping MUG from leeds and CAP from berlin (two fulfilments once confirmed). */
  async function draft(extra: Record<string, unknown> = {}): Promise<any> {
    const res = await create({ orderNumber: fresh(), orderLines: lines(['MUG', 2], ['CAP', 1]), shippingDetails: GB_ADDRESS, ...extra });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function confirmed(extra: Record<string, unknown> = {}): Promise<any> {
    const order = await draft(extra);
    const res = await confirm(order.uuid, { shippingMethodCode: 'rm48' });
    expect(res.status).toBe(202);
    return res.body.data;
  }

  /** A confirmed order sent to its suppliers (processing, fulfilments processing). */
  async function processing(): Promise<any> {
    const order = await confirmed();
    await orderAction(sys, 'acme', 'processOrderNow', order.uuid);
    return (await get(order.uuid)).body.data;
  }

  async function progress(order: any, statuses: Record<string, string>): Promise<void> {
    for (const f of order.fulfilments as any[]) {
      const status = statuses[f.supplierLocation.code];
      if (!status) continue;
      await fulfilmentProgress(sys, 'acme', f.uuid, {
        status,
        ...(status === 'dispatched'
          ? { trackingDetails: [{ carrier: 'Royal Mail', trackingNumber: `RM${f.supplierLocation.code}`, trackingUrl: `https://track.example/${f.supplierLocation.code}`, methodCode: 'rm48', methodName: 'Tracked 48' }] }
          : {}),
      });
    }
  }

  beforeAll(async () => {
    sys = await startSystem({
      catalog: true,
      orders: true,
      ordersEnv: async (urls) => {
        stockTap = await tapUpstream(urls.stock!);
        return { STOCK_URL: stockTap.url, STOCK_TIMEOUT_MS: '3000' };
      },
    });
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop', 'other']);
    catalog = await seedCatalog(sys, 'acme');
    api = ordersApi(sys, () => edge, 'acme-shop', () => acme.shop!.token);
    await ordersCaughtUp(sys);
  }, 120_000);

  afterAll(async () => {
    await sys?.close();
    await stockTap?.close();
    await closeAgents();
  });

  describe('POST /orders', () => {
    it('a new orderNumber creates a draft: 201 with the whole order, unwrapped', async () => {
      const orderNumber = fresh();
      const res = await create({
        orderNumber,
        orderLines: [
          { lineNumber: 1, product: { sku: 'MUG' }, quantity: 2 },
          { lineNumber: 2, product: { sku: 'POSTER' }, quantity: 1 },
        ],
        shippingDetails: GB_ADDRESS,
      });
      expect(res.status).toBe(201);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        uuid: UUID,
        orderUuid: res.body.uuid,
        orderNumber,
        printTrailOrderNumber: expect.stringMatching(/^PT-/),
        status: 'draft',
        fulfillableStatus: 'fulfillable',
        fulfillableFrom: ISO,
        scheduledAt: null,
        confirmedAt: null,
        createdAt: ISO,
        updatedAt: ISO,
        stockHeld: false,
        shippingDetails: GB_ADDRESS_RESOURCE,
        orderLines: [
          { lineNumber: 1, product: product('MUG'), quantity: 2 },
          { lineNumber: 2, product: product('POSTER'), quantity: 1 },
        ],
        fulfilments: [],
        trackingDetails: [],
      });
      // and it reads back the same, wrapped in data
      const read = await get(res.body.uuid);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: res.body });
    });

    it('numbers lines by position when the request gives no lineNumber, and keeps a given printTrailOrderNumber', async () => {
      const printTrailOrderNumber = fresh('PT-OWN');
      const res = await create({ orderNumber: fresh(), printTrailOrderNumber, orderLines: [{ product: { sku: 'MUG' }, quantity: 1 }, { product: { sku: 'CAP' }, quantity: 3 }] });
      expect(res.status).toBe(201);
      expect(res.body.printTrailOrderNumber).toBe(printTrailOrderNumber);
      expect(res.body.orderLines).toEqual([
        { lineNumber: 1, product: product('MUG'), quantity: 1 },
        { lineNumber: 2, product: product('CAP'), quantity: 3 },
      ]);
    });

    it('ignores members it does not know (a client may send those of newer versions)', async () => {
      const res = await create({ orderNumber: fresh(), orderLines: [{ product: { sku: 'MUG', colour: 'red' }, quantity: 1, gift: true }], giftWrap: true });
      expect(res.status).toBe(201);
      expect(res.body.orderLines).toEqual([{ lineNumber: 1, product: product('MUG'), quantity: 1 }]);
    });

    it('the same orderNumber on another channel of the team is another order', async () => {
      const orderNumber = fresh();
      const here = await create({ orderNumber, orderLines: lines(['MUG', 1]) });
      const there = await api.call('POST', '/orders', { channel: 'acme-other', token: acme.other!.token, body: { orderNumber, orderLines: lines(['MUG', 1]) } });
      expect([here.status, there.status]).toEqual([201, 201]);
      expect(there.body.uuid).not.toBe(here.body.uuid);
    });

    describe('rule O2: a replay of an orderNumber', () => {
      it('of a draft: 201, the same order replaced by what was sent', async () => {
        const before = await draft();
        const res = await create({ orderNumber: before.orderNumber, orderLines: lines(['POSTER', 4]), shippingDetails: { ...GB_ADDRESS, city: 'York' } });
        expect(res.status).toBe(201);
        expect(res.body).toEqual({
          ...before,
          updatedAt: ISO,
          fulfillableFrom: ISO,
          shippingDetails: { ...GB_ADDRESS_RESOURCE, city: 'York' },
          orderLines: [{ lineNumber: 1, product: product('POSTER'), quantity: 4 }],
        });
        expect((await get(before.uuid)).body.data).toEqual(res.body);
      });

      it('without printTrailOrderNumber keeps the one the order has', async () => {
        const before = await draft({ printTrailOrderNumber: fresh('PT-KEEP') });
        const res = await create({ orderNumber: before.orderNumber, orderLines: lines(['MUG', 1]) });
        expect(res.status).toBe(201);
        expect(res.body.printTrailOrderNumber).toBe(before.printTrailOrderNumber);
      });

      it('of an order held before confirmation (address rejected): 201, replaced, a draft again', async () => {
        const before = await draft();
        const held = await orderAction(sys, 'acme', 'rejectShippingAddress', before.uuid);
        expect(held).toMatchObject({ status: 'holding', confirmedAt: null });
        const res = await create({ orderNumber: before.orderNumber, orderLines: lines(['MUG', 1]), shippingDetails: GB_ADDRESS });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ uuid: before.uuid, status: 'draft', confirmedAt: null, orderLines: [{ lineNumber: 1, product: product('MUG'), quantity: 1 }] });
      });

      /** Brings a new order into the named state, the way it gets there. */
      const reach: Record<string, () => Promise<any>> = {
        queued: () => confirmed(),
        scheduled: () => confirmed({ scheduledAt: new Date(Date.now() + 86_400_000).toISOString() }),
        processing: () => processing(),
        'holding (confirmed, not sent)': async () => {
          const o = await confirmed();
          await orderAction(sys, 'acme', 'markOrderNotSent', o.uuid);
          return o;
        },
        'back-order': async () => {
          const o = await processing();
          await progress(o, { leeds: 'back-order' });
          return o;
        },
        error: async () => {
          // No endpoint or merchant action leads to `error` (a countdown whose move to processing
          // failed for good); the row is set directly, as that timer would leave it.
          const o = await confirmed();
          await sys.sql(`UPDATE orders.orders SET status = 'error' WHERE uuid = $1`, [o.uuid]);
          return o;
        },
        complete: async () => {
          const o = await processing();
          await progress(o, { leeds: 'dispatched', berlin: 'dispatched' });
          return o;
        },
        partial: async () => {
          const o = await processing();
          await progress(o, { leeds: 'dispatched', berlin: 'failed' });
          return o;
        },
        failed: async () => {
          const o = await processing();
          await progress(o, { leeds: 'failed', berlin: 'cancelled' });
          return o;
        },
        returned: async () => {
          // No operation sets it (a parcel that came back makes an order partial or failed,
          // section 3): an order recorded as returned before.
          const o = await processing();
          await progress(o, { leeds: 'dispatched', berlin: 'dispatched' });
          await sys.sql(`UPDATE orders.orders SET status = 'returned' WHERE uuid = $1`, [o.uuid]);
          return o;
        },
        cancelled: async () => {
          const o = await confirmed();
          expect((await api.call('PUT', `/orders/${o.uuid}/cancel`)).status).toBe(200);
          return o;
        },
        invalid: async () => {
          const o = await processing();
          await progress(o, { leeds: 'invalid' });
          return o;
        },
      };

      it.each([
        ['queued', 'queued', 'order-already-confirmed'],
        ['scheduled', 'scheduled', 'order-already-confirmed'],
        ['processing', 'processing', 'order-already-confirmed'],
        ['holding (confirmed, not sent)', 'holding', 'order-already-confirmed'],
        ['back-order', 'back-order', 'order-already-confirmed'],
        ['error', 'error', 'order-already-confirmed'],
        ['complete', 'complete', 'order-not-updatable'],
        ['partial', 'partial', 'order-not-updatable'],
        ['failed', 'failed', 'order-not-updatable'],
        ['returned', 'returned', 'order-not-updatable'],
        ['cancelled', 'cancelled', 'order-not-updatable'],
        ['invalid', 'invalid', 'order-not-updatable'],
      ])('of an order %s: 409 %s... with orderUuid, orderStatus and the full order; the order unchanged', async (state, status, type) => {
        const order = await reach[state]!();
        const before = (await get(order.uuid)).body.data;
        expect(before.status).toBe(status);

        const res = await create({ orderNumber: order.orderNumber, orderLines: lines(['POSTER', 9]), shippingDetails: { ...GB_ADDRESS, city: 'Hull' } });
        expect(res.status).toBe(409);
        expect(res.contentType).toMatch(/^application\/problem\+json/);
        expect(res.body).toEqual({
          type: `${PROBLEM_TYPE_BASE}${type}`,
          title: 'Conflict',
          status: 409,
          detail: expect.any(String),
          orderUuid: order.uuid,
          orderStatus: status,
          data: before,
        });
        expect((await get(order.uuid)).body.data).toEqual(before);
      });

      it('the replay is answered before the SKUs are judged: strictSkus with an unknown SKU still gets the 409', async () => {
        const confirmedOrder = await reach.queued!();
        const finished = await reach.cancelled!();
        for (const [order, type] of [[confirmedOrder, 'order-already-confirmed'], [finished, 'order-not-updatable']] as const) {
          const res = await create({ orderNumber: order.orderNumber, orderLines: lines(['NO-SUCH-SKU', 1]), strictSkus: true });
          expect(res.status).toBe(409);
          expect(res.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}${type}`, orderUuid: order.uuid });
        }
      });
    });

    describe('other conflicts', () => {
      it('a printTrailOrderNumber of another order of the team: 409, a plain problem without orderUuid', async () => {
        const taken = await api.call('POST', '/orders', {
          channel: 'acme-other',
          token: acme.other!.token,
          body: { orderNumber: fresh(), printTrailOrderNumber: fresh('PT-TAKEN'), orderLines: lines(['MUG', 1]) },
        });
        expect(taken.status).toBe(201);
        const orderNumber = fresh();
        const res = await create({ orderNumber, printTrailOrderNumber: taken.body.printTrailOrderNumber, orderLines: lines(['MUG', 1]) });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}conflict`, title: 'Conflict', status: 409, detail: expect.any(String) });
        const list = await api.call('GET', `/orders?order-number=${orderNumber}`);
        expect(list.body.meta.total).toBe(0);
      });

      it('reserve: true holds stock for every line', async () => {
        const before = (await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held;
        const res = await create({ orderNumber: fresh(), orderLines: lines(['MUG', 5], ['POSTER', 1]), reserve: true, shippingDetails: GB_ADDRESS });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ status: 'draft', stockHeld: true, confirmedAt: null });
        expect((await orderHolds(sys, 'acme', res.body.uuid)).filter((h) => h.status === 'PLACED').map((h) => [h.lineNumber, h.quantity])).toEqual([
          [1, 5],
          [2, 1],
        ]);
        expect((await warehouseStock(sys, 'acme', catalog.products.MUG!.uuid)).leeds!.held).toBe(before + 5);
      });

      it('reserve: true without the stock: 409 without type listing every short SKU; nothing created or held', async () => {
        // Every product the order names, the one that could be held (MUG) too: no partial hold may stay.
        const named = ['SCARCE', 'MUG', 'SOLDOUT'].map((sku) => catalog.products[sku]!.uuid);
        const stockOf = () => Promise.all(named.map((uuid) => warehouseStock(sys, 'acme', uuid)));
        const stockBefore = await stockOf();
        const orderNumber = fresh();
        const res = await create({ orderNumber, orderLines: lines(['SCARCE', 5], ['MUG', 1], ['SOLDOUT', 2], ['SCARCE', 1]), reserve: true });
        expect(res.status).toBe(409);
        expect(res.contentType).toMatch(/^application\/problem\+json/);
        expect(res.body).toEqual({
          title: 'Conflict',
          status: 409,
          detail: expect.any(String),
          shortSkus: expect.arrayContaining([
            { sku: 'SCARCE', requested: 6, available: 3 },
            { sku: 'SOLDOUT', requested: 2, available: 0 },
          ]),
        });
        expect(res.body.shortSkus).toHaveLength(2);
        expect(res.body).not.toHaveProperty('type');
        expect((await api.call('GET', `/orders?order-number=${orderNumber}`)).body.meta.total).toBe(0);
        expect(await stockOf()).toEqual(stockBefore);
      });
    });

    describe('rule O3: strictSkus', () => {
      it('without it a line whose SKU matches no product is dropped', async () => {
        const res = await create({ orderNumber: fresh(), orderLines: lines(['MUG', 1], ['NOPE', 1], ['CAP', 1]) });
        expect(res.status).toBe(201);
        expect(res.body.orderLines).toEqual([
          { lineNumber: 1, product: product('MUG'), quantity: 1 },
          { lineNumber: 3, product: product('CAP'), quantity: 1 },
        ]);
      });

      it('with it the whole order is refused: 422 naming the line, nothing created', async () => {
        const orderNumber = fresh();
        const res = await create({ orderNumber, orderLines: lines(['MUG', 1], ['CAP', 1], ['NOPE', 1]), strictSkus: true });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          type: `${PROBLEM_TYPE_BASE}validation-failed`,
          title: 'Unprocessable Entity',
          status: 422,
          detail: expect.any(String),
          violations: [{ property: 'orderLines[2].product.sku', message: expect.any(String) }],
        });
        expect((await api.call('GET', `/orders?order-number=${orderNumber}`)).body.meta.total).toBe(0);
      });
    });

    describe('rule O4: size limits, each a 422 naming the field', () => {
      const long = (n: number) => 'x'.repeat(n);
      const base = () => ({ orderNumber: fresh(), orderLines: lines(...Array.from({ length: 8 }, () => ['MUG', 1] as [string, number])), shippingDetails: { ...GB_ADDRESS } });

      it.each([
        ['orderNumber', (b: any) => (b.orderNumber = long(256))],
        ['printTrailOrderNumber', (b: any) => (b.printTrailOrderNumber = long(256))],
        ['orderLines[7].product.sku', (b: any) => (b.orderLines[7].product.sku = long(256))],
        ['shippingDetails.companyName', (b: any) => (b.shippingDetails.companyName = long(151))],
        ['shippingDetails.address1', (b: any) => (b.shippingDetails.address1 = long(251))],
        ['shippingDetails.address2', (b: any) => (b.shippingDetails.address2 = long(251))],
        ['shippingDetails.address3', (b: any) => (b.shippingDetails.address3 = long(251))],
        ['shippingDetails.address4', (b: any) => (b.shippingDetails.address4 = long(251))],
        ['shippingDetails.postalCode', (b: any) => (b.shippingDetails.postalCode = long(26))],
        ['shippingDetails.state.name', (b: any) => (b.shippingDetails.state = { name: long(101) })],
        ['shippingDetails.state.code', (b: any) => (b.shippingDetails.state = { code: long(31) })],
        ['shippingDetails.country.name', (b: any) => (b.shippingDetails.country = { name: long(101), code: 'GB' })],
        ['shippingDetails.email', (b: any) => (b.shippingDetails.email = long(101))],
        ['shippingDetails.firstName', (b: any) => (b.shippingDetails.firstName = long(101))],
        ['shippingDetails.lastName', (b: any) => (b.shippingDetails.lastName = long(101))],
        ['shippingDetails.city', (b: any) => (b.shippingDetails.city = long(101))],
        ['shippingDetails.phone', (b: any) => (b.shippingDetails.phone = long(51))],
      ])('%s one character over', async (property, spoil) => {
        const body = base();
        spoil(body);
        const res = await create(body);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          type: `${PROBLEM_TYPE_BASE}validation-failed`,
          title: 'Unprocessable Entity',
          status: 422,
          detail: expect.any(String),
          violations: [{ property, message: expect.stringMatching(/more than \d+ characters/) }],
        });
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      });

      it('a country code no country has is a 422 naming it, and creates nothing', async () => {
        const body = base();
        body.shippingDetails = { ...GB_ADDRESS, country: { name: 'Nowhere', code: 'ZZ' } } as typeof body.shippingDetails;
        const res = await create(body);
        expect(res.status).toBe(422);
        expect(res.body.violations).toEqual([{ property: 'shippingDetails.country.code', message: expect.stringMatching(/ISO 3166-1/) }]);
        expect((await api.call('GET', `/orders?order-number=${body.orderNumber}`)).body.meta.total).toBe(0);
      });

      it('every field at its limit is accepted and kept whole', async () => {
        const shippingDetails = {
          firstName: long(100),
          lastName: long(100),
          companyName: long(150),
          address1: long(250),
          address2: long(250),
          address3: long(250),
          address4: long(250),
          city: long(100),
          postalCode: long(25),
          state: { name: long(100), code: long(30) },
          country: { name: long(100), code: 'GB' },
          email: long(100),
          phone: long(50),
        };
        const orderNumber = `${fresh()}-`.padEnd(255, 'n');
        const printTrailOrderNumber = `${fresh('PT')}-`.padEnd(255, 'p');
        const res = await create({ orderNumber, printTrailOrderNumber, orderLines: lines(['MUG', 1]), shippingDetails });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ orderNumber, printTrailOrderNumber, shippingDetails });
      });

      it('characters are counted as characters: 255 emoji make an order number of 255 (510 UTF-16 units)', async () => {
        const orderNumber = '\u{1F4E6}'.repeat(255);
        const res = await create({ orderNumber, orderLines: lines(['MUG', 1]) });
        expect(res.status).toBe(201);
        expect(res.body.orderNumber).toBe(orderNumber);
        const over = await create({ orderNumber: '\u{1F4E6}'.repeat(256), orderLines: lines(['MUG', 1]) });
        expect(over.status).toBe(422);
        expect(over.body.violations).toEqual([{ property: 'orderNumber', message: expect.any(String) }]);
      });

      it('a NUL character in any member is a 422 naming it, never a 500', async () => {
        const res = await create({ orderNumber: 'A\u0000B', orderLines: [{ product: { sku: 'MUG\u0000' }, quantity: 1 }], shippingDetails: { ...GB_ADDRESS, city: 'Le\u0000eds' } });
        expect(res.status).toBe(422);
        expect(res.body.violations.map((v: { property: string }) => v.property).sort()).toEqual(['orderLines[0].product.sku', 'orderNumber', 'shippingDetails.city']);
        const amend = await api.call('PUT', `/orders/${(await create({ orderNumber: fresh(), orderLines: lines(['MUG', 1]) })).body.uuid}/lines`, {
          body: { orderLines: [{ lineNumber: 1, product: { sku: 'MUG\u0000' }, quantity: 1 }] },
        });
        expect(amend.status).toBe(422);
        expect(amend.body.violations).toEqual([{ property: 'orderLines[0].product.sku', message: expect.any(String) }]);
      });

      it('an unpaired surrogate (JSON "\\ud800") in any member is a 422 naming it, never a 500', async () => {
        const orderNumber = `${fresh()}\ud800X`;
        const res = await create({ orderNumber, printTrailOrderNumber: 'PT-\udc00', orderLines: lines(['MUG', 1]), shippingDetails: { ...GB_ADDRESS, city: 'L\udfff' } });
        expect(res.status).toBe(422);
        expect(res.body.violations.map((v: { property: string }) => v.property).sort()).toEqual(['orderNumber', 'printTrailOrderNumber', 'shippingDetails.city']);
      });

      it('empty and null shipping members are taken as absent, not refused', async () => {
        const shippingDetails = { ...GB_ADDRESS, companyName: '', address2: '', address3: null, phone: '', state: { name: '', code: null }, country: { name: 'United Kingdom', code: 'GB' } };
        const res = await create({ orderNumber: fresh(), orderLines: lines(['MUG', 1]), shippingDetails });
        expect(res.status).toBe(201);
        expect(res.body.shippingDetails).toEqual(GB_ADDRESS_RESOURCE);
      });

      it('an over-long SKU at its limit is only unmatched (dropped), never a 500', async () => {
        const res = await create({ orderNumber: fresh(), orderLines: lines(['MUG', 1], [long(255), 1]) });
        expect(res.status).toBe(201);
        expect(res.body.orderLines).toHaveLength(1);
      });

      it('500 lines are accepted; 501 are refused on the count alone', async () => {
        const many = (count: number) => Array.from({ length: count }, (_, i) => ({ lineNumber: i + 1, product: { sku: 'POSTER' }, quantity: 1 }));
        const ok = await create({ orderNumber: fresh(), orderLines: many(500) });
        expect(ok.status).toBe(201);
        expect(ok.body.orderLines).toHaveLength(500);

        const res = await create({ orderNumber: fresh(), orderLines: many(501) });
        expect(res.status).toBe(422);
        expect(res.body.violations).toEqual([{ property: 'orderLines', message: 'must NOT have more than 500 items' }]);

        // however wrong the lines are: nothing about them is reported beside the count
        const invalid = Array.from({ length: 501 }, () => ({ product: {}, quantity: 0 }));
        const counted = await create({ orderNumber: fresh(), orderLines: invalid });
        expect(counted.status).toBe(422);
        expect(counted.body.violations).toEqual([{ property: 'orderLines', message: 'must NOT have more than 500 items' }]);
      });

      it('other invalid members are named too (missing orderNumber, a quantity of 0, a bad country code)', async () => {
        const res = await create({ orderLines: [{ product: { sku: 'MUG' }, quantity: 0 }], shippingDetails: { country: { code: 'GBR' } } });
        expect(res.status).toBe(422);
        expect(res.body.violations.map((v: { property: string }) => v.property).sort()).toEqual(
          ['orderNumber', 'orderLines[0].quantity', 'shippingDetails.country.code'].sort(),
        );
      });
    });
  });

  describe('GET /orders/{orderUuid}', () => {
    it('answers the order wrapped in data', async () => {
      const order = await confirmed();
      const res = await get(order.uuid);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: order });
    });

    it('a value that is not a uuid and a uuid naming no order answer the same 404', async () => {
      const unknown = await get('00000000-0000-4000-8000-000000000000');
      const malformed = await get('not-a-uuid');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(ORDER_NOT_FOUND);
      expect(malformed.status).toBe(404);
      expect(malformed.body).toEqual(unknown.body);
      // Nor one whose escapes do not even decode, on any order path.
      for (const [method, path] of [['GET', '/orders/%FF'], ['GET', '/orders/%C0%AF'], ['PUT', '/orders/%zz/confirm'], ['DELETE', '/orders/%']]) {
        const undecodable = await api.call(method!, path!);
        expect([undecodable.status, undecodable.body]).toEqual([404, unknown.body]);
      }
    });

    it('shows tracking with the recommended and the legacy keys and without methodCode', async () => {
      const order = await processing();
      await progress(order, { leeds: 'dispatched' });
      const res = await get(order.uuid);
      const leeds = res.body.data.fulfilments.find((f: any) => f.supplierLocation.code === 'leeds');
      const expected = {
        carrier: 'Royal Mail',
        trackingNumber: 'RMleeds',
        trackingUrl: 'https://track.example/leeds',
        courier: 'Royal Mail',
        number: 'RMleeds',
        url: 'https://track.example/leeds',
        methodName: 'Tracked 48',
        fulfilmentUuid: leeds.uuid,
        createdAt: ISO,
      };
      expect(leeds.status).toBe('dispatched');
      expect(leeds.trackingDetails).toEqual([expected]);
      expect(res.body.data.trackingDetails).toEqual([expected]);
    });
  });

  describe('GET /orders', () => {
    let mine: any[];
    /** A team and channel of their own, so the counts are exact. */
    let listApi: OrdersApi;
    let listToken: string;

    beforeAll(async () => {
      const tokens = await seedTeam(sys, 'lister', ['shop']);
      await seedCatalog(sys, 'lister');
      await ordersCaughtUp(sys);
      listToken = tokens.shop!.token;
      listApi = ordersApi(sys, () => edge, 'lister-shop', () => listToken);
      mine = [];
      for (let i = 1; i <= 5; i++) {
        const res = await listApi.call('POST', '/orders', { body: { orderNumber: `L-${i}`, orderLines: lines(['MUG', i]), shippingDetails: GB_ADDRESS } });
        expect(res.status).toBe(201);
        mine.push(res.body);
      }
      // L-2 and L-4 confirmed (queued): changed after the others were created
      for (const o of [mine[1], mine[3]]) expect((await listApi.call('PUT', `/orders/${o.uuid}/confirm`, { body: {} })).status).toBe(202);
    }, 60_000);

    it('pages newest first with Laravel-style links and meta', async () => {
      const res = await listApi.call('GET', '/orders?per-page=2');
      expect(res.status).toBe(200);
      const url = `${edge.url}/v1/channels/lister-shop/orders`;
      expect(res.body.data.map((o: any) => o.orderNumber)).toEqual(['L-5', 'L-4']);
      // Links repeat the effective sort (the document's default when none was asked for) and per-page.
      const q = 'sort=created-desc&per-page=2';
      expect(res.body.links).toEqual({ first: `${url}?${q}&page=1`, last: `${url}?${q}&page=3`, prev: null, next: `${url}?${q}&page=2` });
      expect(res.body.meta).toEqual({
        current_page: 1,
        from: 1,
        to: 2,
        per_page: 2,
        last_page: 3,
        total: 5,
        path: url,
        links: [
          { url: null, label: 'Previous', active: false },
          { url: `${url}?${q}&page=1`, label: '1', active: true },
          { url: `${url}?${q}&page=2`, label: '2', active: false },
          { url: `${url}?${q}&page=3`, label: '3', active: false },
          { url: `${url}?${q}&page=2`, label: 'Next', active: false },
        ],
      });
      const last = await listApi.call('GET', '/orders?per-page=2&page=3');
      expect(last.body.data.map((o: any) => o.orderNumber)).toEqual(['L-1']);
      expect(last.body.meta).toMatchObject({ current_page: 3, from: 5, to: 5 });
      const beyond = await listApi.call('GET', '/orders?per-page=2&page=9');
      expect(beyond.status).toBe(200);
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.meta).toMatchObject({ from: null, to: null, total: 5 });
    });

    it('filters by status (comma-separated), order number, created-since and updated-since; links keep the filters', async () => {
      const queued = await listApi.call('GET', '/orders?status=queued');
      expect(queued.body.data.map((o: any) => o.orderNumber)).toEqual(['L-4', 'L-2']);
      expect(queued.body.links.first).toBe(`${edge.url}/v1/channels/lister-shop/orders?status=queued&sort=created-desc&per-page=15&page=1`);
      const both = await listApi.call('GET', '/orders?status=queued,draft');
      expect(both.body.meta.total).toBe(5);
      const one = await listApi.call('GET', '/orders?order-number=L-3');
      expect(one.body.data).toEqual([expect.objectContaining({ uuid: mine[2].uuid, orderNumber: 'L-3' })]);
      const created = await listApi.call('GET', `/orders?created-since=${encodeURIComponent(mine[3].createdAt)}`);
      expect(created.body.data.map((o: any) => o.orderNumber)).toEqual(['L-5', 'L-4']);
      const since = (await listApi.call('GET', `/orders/${mine[1].uuid}`)).body.data.updatedAt;
      const updated = await listApi.call('GET', `/orders?sort=updated-asc&updated-since=${encodeURIComponent(since)}`);
      expect(updated.body.data.map((o: any) => o.orderNumber)).toEqual(['L-2', 'L-4']);
      // as clients often write them: the colons of a timestamp left as they are
      const raw = await listApi.call('GET', `/orders?sort=updated-asc&updated-since=${since}`);
      expect(raw.status).toBe(200);
      expect(raw.body.data.map((o: any) => o.orderNumber)).toEqual(['L-2', 'L-4']);
    });

    it("an order number with reserved characters is found, and its links can be followed", async () => {
      // on acme's channel: this list's counts stay as they are
      const orderNumber = `PO(${Date.now()})*O'Brien!`;
      expect((await api.call('POST', '/orders', { body: { orderNumber, orderLines: lines(['MUG', 1]) } })).status).toBe(201);
      const asWritten = await api.call('GET', `/orders?order-number=${orderNumber}`);
      expect(asWritten.status).toBe(200);
      expect(asWritten.body.data.map((o: any) => o.orderNumber)).toEqual([orderNumber]);
      const first: string = asWritten.body.links.first;
      expect(first).not.toMatch(/[!'()*]/);
      const followed = await api.call('GET', first.slice(`${edge.url}/v1/channels/acme-shop`.length));
      expect(followed.status).toBe(200);
      expect(followed.body.data.map((o: any) => o.orderNumber)).toEqual([orderNumber]);
    });

    it('takes the camelCase spellings and per_page too; links use the document\'s names', async () => {
      const one = await listApi.call('GET', '/orders?orderNumber=L-3');
      expect(one.body.data.map((o: any) => o.orderNumber)).toEqual(['L-3']);
      const created = await listApi.call('GET', `/orders?createdSince=${encodeURIComponent(mine[3].createdAt)}&per_page=1`);
      expect(created.body.data.map((o: any) => o.orderNumber)).toEqual(['L-5']);
      expect(created.body.meta).toMatchObject({ per_page: 1, total: 2 });
      expect(created.body.links.next).toBe(
        `${edge.url}/v1/channels/lister-shop/orders?created-since=${encodeURIComponent(mine[3].createdAt)}&sort=created-desc&per-page=1&page=2`,
      );
      // An offset written as-is: the raw `+` (a space once form-decoded) is read back as `+`.
      const offset = await listApi.call('GET', `/orders?created-since=${mine[3].createdAt.replace('Z', '+00:00')}&per-page=1`);
      expect(offset.status).toBe(200);
      expect(offset.body.meta.total).toBe(2);
      expect((await listApi.call('GET', '/orders?perPage=2')).body.meta.per_page).toBe(2);
      const refused = await listApi.call('GET', '/orders?updatedSince=yesterday');
      expect(refused.status).toBe(422);
      expect(refused.body.violations.map((v: { property: string }) => v.property)).toContain('updatedSince');
      // a NUL in a filter (Postgres refuses it in text): 422 naming the parameter, not a 500
      const nul = await listApi.call('GET', '/orders?order-number=a%00b');
      expect(nul.status).toBe(422);
      expect(nul.body.violations.map((v: { property: string }) => v.property)).toEqual(['order-number']);
      // bytes that are not UTF-8 (read as U+FFFD, a value nobody sent): 422 naming the parameter, as a body's would be
      const notUtf8 = await listApi.call('GET', '/orders?order-number=%FF');
      expect(notUtf8.status).toBe(422);
      expect(notUtf8.body.violations.map((v: { property: string }) => v.property)).toEqual(['order-number']);
      expect((await listApi.call('GET', '/orders?order-number=%E2%82%AC')).status).toBe(200);
      // any number of second fractions (RFC 3339): read to the millisecond
      expect((await listApi.call('GET', '/orders?updated-since=2026-01-01T00:00:00.1111111111Z')).status).toBe(200);
      // a value the document's date-time lets through but no instant is (a leap second): named as sent too
      for (const name of ['updated-since', 'createdSince']) {
        const leap = await listApi.call('GET', `/orders?${name}=2026-12-31T23:59:60Z`);
        expect(leap.status).toBe(422);
        expect(leap.body.violations.map((v: { property: string }) => v.property)).toEqual([name]);
      }
    });

    it('an invalid query answers 422 naming the parameter', async () => {
      for (const [query, property] of [
        ['status=queued,shipped', 'status'],
        ['status=shipped', 'status'],
        ['updated-since=yesterday', 'updated-since'],
        // well-formed, but of year 0 in UTC (Postgres has none): was a 500
        ['updated-since=0000-01-01T00:00:00Z', 'updated-since'],
        ['created-since=0001-01-01T00:00:00%2B01:00', 'created-since'],
        ['per-page=101', 'per-page'],
        ['page=0', 'page'],
        ['page=0x2', 'page'],
        ['per-page=1e1', 'per-page'],
        ['sort=random', 'sort'],
      ]) {
        const res = await listApi.call('GET', `/orders?${query}`);
        expect({ query, status: res.status }).toEqual({ query, status: 422 });
        expect(res.body.violations.map((v: { property: string }) => v.property)).toContain(property);
      }
    });

    it('next_cursor stays behind orders changed too recently to be sure no earlier-stamped change is still committing', async () => {
      // The default settle time (60 s): every order of this list changed within it.
      const fresh = await listApi.call('GET', '/orders?sort=updated-asc');
      expect(fresh.body.data).toHaveLength(5);
      expect(fresh.body.meta.next_cursor).toBeNull();
      const cursor = encodeOrderCursor({ updatedAt: '2026-01-01T00:00:00.000Z', uuid: '00000000-0000-4000-8000-000000000000' });
      const from = await listApi.call('GET', `/orders?after=${cursor}`);
      expect(from.body.data).toHaveLength(5);
      expect(from.body.meta.next_cursor).toBe(cursor);
    });

    it('catching up with the cursor (after = meta.next_cursor) misses no order that changes meanwhile', async () => {
      // (last of this list's tests: it changes an order) An edge without settle time, so the cursor follows every order.
      const settled = await sys.startEdge({ ORDERS_CURSOR_SETTLE_SECONDS: '0' });
      const listApi = ordersApi(sys, () => settled, 'lister-shop', () => listToken);
      const read: string[] = [];
      let res = await listApi.call('GET', '/orders?sort=updated-asc&per-page=2');
      expect(res.status).toBe(200);
      sys.contract.check('GET', '/orders', res);
      read.push(...res.body.data.map((o: any) => o.uuid));
      // The first order read changes: numbered pages would now shift the rest back by one.
      const changed = res.body.data[0].uuid;
      expect((await listApi.call('PUT', `/orders/${changed}/lines`, { body: { orderLines: lines(['MUG', 9]) } })).status).toBe(200);
      let cursor: string = res.body.meta.next_cursor;
      for (let i = 0; i < 10 && res.body.data.length === 2; i++) {
        res = await listApi.call('GET', `/orders?after=${cursor}&per-page=2`);
        expect({ status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({ status: 200 });
        sys.contract.check('GET', '/orders', res);
        read.push(...res.body.data.map((o: any) => o.uuid));
        cursor = res.body.meta.next_cursor;
      }
      expect(new Set(read)).toEqual(new Set(mine.map((o) => o.uuid)));
      // the changed order once more, last
      expect(read.filter((uuid) => uuid === changed)).toHaveLength(2);
      expect(read[read.length - 1]).toBe(changed);
      // nothing after the last change: an empty page keeps the cursor
      const caughtUp = await listApi.call('GET', `/orders?after=${cursor}`);
      expect(caughtUp.body).toMatchObject({ data: [], meta: { next_cursor: cursor } });
      // newest-first pages have no cursor
      expect((await listApi.call('GET', '/orders')).body.meta).not.toHaveProperty('next_cursor');
      for (const query of ['after=not-a-cursor', `after=${cursor}&sort=created-desc`]) {
        const refused = await listApi.call('GET', `/orders?${query}`);
        expect(refused.status).toBe(422);
        expect(refused.body.violations.map((v: { property: string }) => v.property)).toEqual(['after']);
        // In the document's words, never the subgraph's enum (UPDATED_ASC).
        expect(JSON.stringify(refused.body)).not.toMatch(/UPDATED_ASC|CREATED_DESC/);
      }
      await settled.close();
    });
  });

  describe('PUT /orders/{orderUuid}/confirm', () => {
    it('202: confirmedAt set, stock held, fulfilments built per supplier location with the chosen shipping method', async () => {
      const order = await draft();
      const res = await confirm(order.uuid, { shippingMethodCode: 'rm48' });
      expect(res.status).toBe(202);
      const data = res.body.data;
      expect(data).toEqual({
        ...order,
        status: 'queued',
        confirmedAt: ISO,
        updatedAt: ISO,
        fulfillableFrom: ISO,
        stockHeld: true,
        fulfilments: expect.any(Array),
      });
      expect(Date.parse(data.fulfillableFrom)).toBeGreaterThan(Date.parse(data.confirmedAt));
      const method = { code: 'rm48', name: 'Royal Mail Tracked 48' };
      expect([...data.fulfilments].sort((a: any, b: any) => a.supplierLocation.code.localeCompare(b.supplierLocation.code))).toEqual([
        { uuid: UUID, status: 'draft', supplierLocation: { code: 'berlin', countryCode: 'DE' }, shippingMethod: method, lines: [{ lineNumber: 2, sku: 'CAP', quantity: 1 }], trackingDetails: [], createdAt: ISO, updatedAt: ISO },
        { uuid: UUID, status: 'draft', supplierLocation: { code: 'leeds', countryCode: 'GB' }, shippingMethod: method, lines: [{ lineNumber: 1, sku: 'MUG', quantity: 2 }], trackingDetails: [], createdAt: ISO, updatedAt: ISO },
      ]);
      expect((await orderHolds(sys, 'acme', order.uuid)).filter((h) => h.status === 'PLACED')).toHaveLength(2);
    });

    it('without a body or a code, the preferred method serving the destination is taken', async () => {
      const order = await draft();
      const res = await api.call('PUT', `/orders/${order.uuid}/confirm`);
      expect(res.status).toBe(202);
      expect(res.body.data.fulfilments.map((f: any) => f.shippingMethod.code)).toEqual(['rm48', 'rm48']);
    });

    it('confirming a confirmed order answers 202 with it unchanged', async () => {
      const order = await confirmed();
      const again = await confirm(order.uuid, { shippingMethodCode: 'rm48' });
      expect(again.status).toBe(202);
      expect(again.body).toEqual({ data: order });
    });

    it('a shipping method the team lacks, or one not serving the destination, is 422 naming shippingMethodCode; nothing changes', async () => {
      const order = await draft();
      for (const code of ['pigeon', 'dhl-de']) {
        const res = await confirm(order.uuid, { shippingMethodCode: code });
        expect(res.status).toBe(422);
        expect(res.body.violations).toEqual([{ property: 'shippingMethodCode', message: expect.any(String) }]);
      }
      const tooLong = await confirm(order.uuid, { shippingMethodCode: 'x'.repeat(65) });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.violations).toEqual([{ property: 'shippingMethodCode', message: expect.any(String) }]);
      expect((await get(order.uuid)).body.data).toEqual(order);
    });

    it('not enough stock: 409 without type listing the short SKUs; the order stays a draft', async () => {
      const order = (await create({ orderNumber: fresh(), orderLines: lines(['SCARCE', 4], ['MUG', 1]), shippingDetails: GB_ADDRESS })).body;
      const res = await confirm(order.uuid, { shippingMethodCode: 'rm48' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ title: 'Conflict', status: 409, detail: expect.any(String), shortSkus: [{ sku: 'SCARCE', requested: 4, available: 3 }] });
      expect((await get(order.uuid)).body.data).toEqual(order);
    });

    it('a cancelled order cannot be confirmed: 428', async () => {
      const order = await draft();
      expect((await api.call('DELETE', `/orders/${order.uuid}`)).status).toBe(200);
      const res = await confirm(order.uuid);
      expect(res.status).toBe(428);
      expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}order-state-forbids`, title: 'Precondition Required', status: 428, detail: expect.any(String) });
    });

    it('an order cancelled after its confirmation is a confirmed order: confirming it again answers 202 with it unchanged', async () => {
      const order = await confirmed();
      const cancelled = await api.call('PUT', `/orders/${order.uuid}/cancel`);
      expect(cancelled.body.data).toMatchObject({ status: 'cancelled', confirmedAt: order.confirmedAt });
      const res = await confirm(order.uuid);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: cancelled.body.data });
      expect((await get(order.uuid)).body.data).toEqual(cancelled.body.data);
    });
  });

  describe('PUT /orders/{orderUuid}/lines (rule O5)', () => {
    it('on a draft: the lines become the set sent; the amendment says what changed', async () => {
      const order = await draft();
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, {
        body: { orderLines: [{ lineNumber: 1, product: { sku: 'MUG' }, quantity: 7 }, { lineNumber: 3, product: { sku: 'POSTER' }, quantity: 1 }] },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          ...order,
          updatedAt: ISO,
          fulfillableFrom: ISO,
          orderLines: [
            { lineNumber: 1, product: product('MUG'), quantity: 7 },
            { lineNumber: 3, product: product('POSTER'), quantity: 1 },
          ],
        },
        amendment: {
          addedLines: [{ lineNumber: 3, sku: 'POSTER', previousSku: null, quantityBefore: null, quantityAfter: 1 }],
          removedLines: [{ lineNumber: 2, sku: 'CAP', previousSku: null, quantityBefore: 1, quantityAfter: null }],
          changedLines: [{ lineNumber: 1, sku: 'MUG', previousSku: null, quantityBefore: 2, quantityAfter: 7 }],
          unchangedLineNumbers: [],
          replacedFulfilments: [],
          countdownRestarted: false,
        },
      });
    });

    it('on a queued order: fulfilments rebuilt with new uuids, shipping method kept, stock held again, a fresh countdown, no webhook event', async () => {
      const order = await confirmed();
      const eventsBefore = await sys.sql<{ n: number }>(`SELECT count(*)::int AS n FROM orders.outbox_event WHERE event_key = $1`, [order.uuid]);
      await new Promise((r) => setTimeout(r, 20));
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, {
        body: { orderLines: [{ lineNumber: 1, product: { sku: 'MUG' }, quantity: 3 }, { lineNumber: 2, product: { sku: 'CAP' }, quantity: 1 }, { lineNumber: 3, product: { sku: 'POSTER' }, quantity: 2 }] },
      });
      expect(res.status).toBe(200);
      const { data, amendment } = res.body;
      const oldUuids = order.fulfilments.map((f: any) => f.uuid);
      expect(data.status).toBe('queued');
      expect(data.confirmedAt).toBe(order.confirmedAt);
      expect(Date.parse(data.fulfillableFrom)).toBeGreaterThan(Date.parse(order.fulfillableFrom));
      expect(data.fulfilments.map((f: any) => f.supplierLocation.code).sort()).toEqual(['berlin', 'leeds', 'print-on-demand']);
      for (const f of data.fulfilments) {
        expect(oldUuids).not.toContain(f.uuid);
        expect(f.shippingMethod).toEqual({ code: 'rm48', name: 'Royal Mail Tracked 48' });
        expect(f.status).toBe('draft');
      }
      expect(amendment).toMatchObject({
        addedLines: [{ lineNumber: 3, sku: 'POSTER', previousSku: null, quantityBefore: null, quantityAfter: 2 }],
        removedLines: [],
        changedLines: [{ lineNumber: 1, sku: 'MUG', previousSku: null, quantityBefore: 2, quantityAfter: 3 }],
        unchangedLineNumbers: [2],
        countdownRestarted: true,
      });
      expect([...amendment.replacedFulfilments].sort((a: any, b: any) => a.supplierLocation.code.localeCompare(b.supplierLocation.code))).toEqual([
        { supplierLocation: { code: 'berlin', countryCode: 'DE' }, previousUuid: oldUuids.find((u: string) => order.fulfilments.find((f: any) => f.uuid === u).supplierLocation.code === 'berlin'), newUuid: data.fulfilments.find((f: any) => f.supplierLocation.code === 'berlin').uuid },
        { supplierLocation: { code: 'leeds', countryCode: 'GB' }, previousUuid: oldUuids.find((u: string) => order.fulfilments.find((f: any) => f.uuid === u).supplierLocation.code === 'leeds'), newUuid: data.fulfilments.find((f: any) => f.supplierLocation.code === 'leeds').uuid },
        { supplierLocation: expect.objectContaining({ code: 'print-on-demand' }), previousUuid: null, newUuid: data.fulfilments.find((f: any) => f.supplierLocation.code === 'print-on-demand').uuid },
      ]);
      const holds = (await orderHolds(sys, 'acme', order.uuid)).filter((h) => h.status === 'PLACED');
      expect(holds.map((h) => [h.lineNumber, h.quantity]).sort()).toEqual([
        [1, 3],
        [2, 1],
        [3, 2],
      ]);
      // The amendment wrote no event that becomes a webhook (only order.revised, for read models).
      const events = await sys.sql<{ type: string }>(`SELECT envelope->>'type' AS type FROM orders.outbox_event WHERE event_key = $1 ORDER BY seq OFFSET $2`, [order.uuid, eventsBefore[0]!.n]);
      expect(events.map((e) => e.type)).toEqual(['order.revised']);
    });

    it('refused with reason fulfilment-underway once a fulfilment reached a supplier; the order unchanged', async () => {
      const order = await processing();
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: lines(['MUG', 1]) } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        type: `${PROBLEM_TYPE_BASE}amendment-refused`,
        title: 'Conflict',
        status: 409,
        detail: expect.any(String),
        reason: 'fulfilment-underway',
        merchantMessage: expect.any(String),
      });
      expect((await get(order.uuid)).body.data).toEqual(order);
    });

    it('refused with reason stock-held when the new lines cannot be held; the order keeps its lines and holds', async () => {
      const order = await confirmed();
      const holds = await orderHolds(sys, 'acme', order.uuid);
      expect(holds.filter((h) => h.status === 'PLACED').length).toBeGreaterThan(0);
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: [...lines(['MUG', 2], ['CAP', 1]), { lineNumber: 3, product: { sku: 'SCARCE' }, quantity: 50 }] } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        type: `${PROBLEM_TYPE_BASE}amendment-refused`,
        title: 'Conflict',
        status: 409,
        detail: expect.any(String),
        reason: 'stock-held',
        merchantMessage: expect.any(String),
        shortSkus: [{ sku: 'SCARCE', requested: 50, available: 3 }],
      });
      expect((await get(order.uuid)).body.data).toEqual(order);
      expect(await orderHolds(sys, 'acme', order.uuid)).toEqual(holds);
    });

    it('refused with reason unexpected-error when the stock service fails; the order unchanged', async () => {
      const order = await confirmed();
      // Every call the orders service makes to the stock subgraph next fails (retries included).
      for (let i = 1; i <= 10; i++) stockTap.failRequest(stockTap.requests + i, 503);
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: lines(['MUG', 5], ['CAP', 1]) } });
      stockTap.reset();
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        type: `${PROBLEM_TYPE_BASE}amendment-refused`,
        title: 'Conflict',
        status: 409,
        detail: expect.any(String),
        reason: 'unexpected-error',
        merchantMessage: expect.any(String),
      });
      expect((await get(order.uuid)).body.data).toEqual(order);
    });

    it('refused with reason unexpected-error when the stock service does not know the call (releases out of step); the order unchanged', async () => {
      const order = await confirmed();
      const unknownCall = { errors: [{ message: 'Unknown argument "fence" on field "Mutation.holdStock".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] };
      for (let i = 1; i <= 10; i++) stockTap.failRequest(stockTap.requests + i, 400, unknownCall);
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: lines(['MUG', 5], ['CAP', 1]) } });
      stockTap.reset();
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ reason: 'unexpected-error', detail: 'The stock service cannot take this change yet (a release is under way); nothing was changed.' });
      expect((await get(order.uuid)).body.data).toEqual(order);
    });

    it('refused with reason order-not-amendable for a cancelled order', async () => {
      const order = await draft();
      expect((await api.call('PUT', `/orders/${order.uuid}/cancel`)).status).toBe(200);
      const res = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: lines(['MUG', 1]) } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}amendment-refused`, reason: 'order-not-amendable' });
    });

    it('refused with reason being-rebuilt while another change of the order is under way (concurrent amendments)', async () => {
      const order = await confirmed();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: lines(['MUG', i + 1], ['CAP', 1]) } })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
      expect(statuses).toContain(200);
      // Twelve at once overlap: the service refuses rather than waits while one is rebuilding the order.
      expect(statuses).toContain(409);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body).toEqual({
          type: `${PROBLEM_TYPE_BASE}amendment-refused`,
          title: 'Conflict',
          status: 409,
          detail: expect.any(String),
          reason: 'being-rebuilt',
          merchantMessage: expect.any(String),
        });
      }
      // one of the accepted amendments is the order's state, its holds matching it
      const final = (await get(order.uuid)).body.data;
      const mug = final.orderLines.find((l: any) => l.product.sku === 'MUG').quantity;
      const held = (await orderHolds(sys, 'acme', order.uuid)).filter((h) => h.status === 'PLACED' && h.lineNumber === 1);
      expect(held.map((h) => h.quantity)).toEqual([mug]);
    });

    it('validates like create: 500 lines at most (on the count alone), SKUs of 255 characters, every line numbered', async () => {
      const order = await draft();
      const many = Array.from({ length: 501 }, (_, i) => ({ lineNumber: i + 1, product: { sku: 'POSTER' }, quantity: 1 }));
      const tooMany = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: many } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.violations).toEqual([{ property: 'orderLines', message: 'must NOT have more than 500 items' }]);
      const tooManyInvalid = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: many.map(({ product }) => ({ product, quantity: -1 })) } });
      expect(tooManyInvalid.status).toBe(422);
      expect(tooManyInvalid.body.violations).toEqual([{ property: 'orderLines', message: 'must NOT have more than 500 items' }]);
      const longSku = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: [...lines(['MUG', 1]), { lineNumber: 2, product: { sku: 'x'.repeat(256) }, quantity: 1 }] } });
      expect(longSku.status).toBe(422);
      expect(longSku.body.violations).toEqual([{ property: 'orderLines[1].product.sku', message: expect.stringMatching(/more than 255 characters/) }]);
      const unnumbered = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: [{ product: { sku: 'MUG' }, quantity: 1 }] } });
      expect(unnumbered.status).toBe(422);
      expect(unnumbered.body.violations).toEqual([{ property: 'orderLines[0].lineNumber', message: expect.any(String) }]);
      const ok = await api.call('PUT', `/orders/${order.uuid}/lines`, { body: { orderLines: many.slice(0, 500) } });
      expect(ok.status).toBe(200);
      expect(ok.body.data.orderLines).toHaveLength(500);
    });
  });

  describe('PUT /orders/{orderUuid}/cancel and DELETE /orders/{orderUuid}', () => {
    it.each(['PUT cancel', 'DELETE'])('%s: 200 with the cancelled order; holds released; confirmedAt kept', async (how) => {
      const order = await confirmed();
      const res = how === 'DELETE' ? await api.call('DELETE', `/orders/${order.uuid}`) : await api.call('PUT', `/orders/${order.uuid}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ uuid: order.uuid, status: 'cancelled', confirmedAt: order.confirmedAt, stockHeld: false });
      expect(res.body.data.fulfilments.map((f: any) => f.status)).toEqual(['cancelled', 'cancelled']);
      expect((await orderHolds(sys, 'acme', order.uuid)).filter((h) => h.status === 'PLACED')).toEqual([]);
      expect((await get(order.uuid)).body).toEqual(res.body);
    });

    it.each(['PUT cancel', 'DELETE'])('%s once a fulfilment was dispatched: 428, the order unchanged', async (how) => {
      const order = await processing();
      await progress(order, { leeds: 'dispatched' });
      const before = (await get(order.uuid)).body.data;
      const res = how === 'DELETE' ? await api.call('DELETE', `/orders/${order.uuid}`) : await api.call('PUT', `/orders/${order.uuid}/cancel`);
      expect(res.status).toBe(428);
      expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}order-state-forbids`, title: 'Precondition Required', status: 428, detail: expect.any(String) });
      expect((await get(order.uuid)).body.data).toEqual(before);
    });

    it('a finished order: 428', async () => {
      const order = await processing();
      await progress(order, { leeds: 'dispatched', berlin: 'dispatched' });
      expect((await api.call('PUT', `/orders/${order.uuid}/cancel`)).status).toBe(428);
    });
  });

  describe('through the gateway (ORDERS_URL unset)', () => {
    let viaGateway: RunningEdge;
    let gatewayApi: OrdersApi;

    beforeAll(async () => {
      viaGateway = await sys.startEdge({ ORDERS_URL: '' });
      gatewayApi = ordersApi(sys, () => viaGateway, 'acme-shop', () => acme.shop!.token);
    });
    afterAll(async () => {
      await viaGateway?.close();
    });

    it('every order endpoint answers as it does straight from the orders subgraph', async () => {
      const orderNumber = fresh('GW');
      const created = await gatewayApi.call('POST', '/orders', { body: { orderNumber, orderLines: lines(['MUG', 2], ['CAP', 1]), shippingDetails: GB_ADDRESS } });
      expect(created.status).toBe(201);
      const uuid = created.body.uuid;
      expect((await gatewayApi.call('GET', `/orders/${uuid}`)).body).toEqual({ data: created.body });
      expect(await get(uuid)).toMatchObject({ status: 200, body: { data: created.body } });

      const refused = await gatewayApi.call('PUT', `/orders/${uuid}/confirm`, { body: { shippingMethodCode: 'pigeon' } });
      expect(refused.status).toBe(422);
      expect(refused.body.violations).toEqual([{ property: 'shippingMethodCode', message: expect.any(String) }]);

      const confirmedRes = await gatewayApi.call('PUT', `/orders/${uuid}/confirm`, { body: { shippingMethodCode: 'rm48' } });
      expect(confirmedRes.status).toBe(202);
      expect(confirmedRes.body).toEqual((await get(uuid)).body);

      // Rule O2's replay 409 carries the order, read again through the same upstream.
      const replay = await gatewayApi.call('POST', '/orders', { body: { orderNumber, orderLines: lines(['MUG', 1]) } });
      const direct = await create({ orderNumber, orderLines: lines(['MUG', 1]) });
      expect(replay.status).toBe(409);
      expect(replay.body).toEqual(direct.body);
      expect(replay.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}order-already-confirmed`, orderUuid: uuid, data: confirmedRes.body.data });

      const listed = await gatewayApi.call('GET', `/orders?order-number=${orderNumber}`);
      expect(listed.body.data).toEqual([confirmedRes.body.data]);

      // Rule O1: another channel's order is the same 404 as no order at all.
      const missing = await gatewayApi.call('GET', '/orders/00000000-0000-4000-8000-000000000000');
      const elsewhere = await gatewayApi.call('GET', `/orders/${uuid}`, { channel: 'acme-other', token: acme.other!.token });
      expect(missing.status).toBe(404);
      expect(elsewhere.body).toEqual(missing.body);
      expect((await api.call('GET', '/orders/00000000-0000-4000-8000-000000000000')).body).toEqual(missing.body);

      const cancelled = await gatewayApi.call('DELETE', `/orders/${uuid}`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toEqual((await get(uuid)).body);
      expect(cancelled.body.data.status).toBe('cancelled');
    });
  });
});
