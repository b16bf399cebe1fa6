import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import {
  backOfficeOrder,
  enterOrder,
  GB_ADDRESS,
  importOrder,
  lines,
  orderHolds,
  ordersApi,
  ordersCaughtUp,
  seedCatalog,
  type OrdersApi,
} from './support/orders';
import { closeAgents, operator, seedTeam, startSystem, UPDATE_TEAM, type IssuedToken, type RunningEdge, type System } from './support/system';

const ORDER_NOT_FOUND = { type: `${PROBLEM_TYPE_BASE}not-found`, title: 'Not Found', status: 404, detail: 'This order could not be found.' };
const TEAM_INACTIVE = { type: `${PROBLEM_TYPE_BASE}team-inactive`, title: 'Forbidden', status: 403, detail: expect.any(String) };

/**
 * Rule O1 on every order endpoint (orders of another channel, entered in the merchant application
 * or imported are answered exactly like a uuid that names no order, and left unchanged), and the
 * inactive team's rules (spec section 7: create, amend and confirm refused after validation; reads
 * and cancelling work; confirming a confirmed order still answers 202).
 */
describe('order visibility (rule O1) and the inactive team', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let api: OrdersApi;

  beforeAll(async () => {
    sys = await startSystem({ catalog: true, orders: true });
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop', 'other']);
    await seedCatalog(sys, 'acme');
    api = ordersApi(sys, () => edge, 'acme-shop', () => acme.shop!.token);
    await ordersCaughtUp(sys);
  }, 120_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  describe('rule O1', () => {
    const NONEXISTENT = '00000000-0000-4000-8000-000000000000';
    let invisible: Record<string, { uuid: string; orderNumber: string }>;

    beforeAll(async () => {
      const otherChannel = await api.call('POST', '/orders', {
        channel: 'acme-other',
        token: acme.other!.token,
        body: { orderNumber: 'OTHER-1', orderLines: lines(['MUG', 1]), shippingDetails: GB_ADDRESS },
      });
      expect(otherChannel.status).toBe(201);
      const entered = await enterOrder(sys, 'acme', { orderNumber: 'ENTERED-1', orderLines: lines(['MUG', 1]), shippingDetails: GB_ADDRESS });
      expect(entered).toMatchObject({ origin: 'merchant-app', channelId: 'acme-standard' });
      // Imported onto the very channel the token belongs to: filed there, still not the API's.
      const imported = await importOrder(sys, 'acme', 'acme-shop', { orderNumber: 'IMPORTED-1', orderLines: lines(['MUG', 1]), shippingDetails: GB_ADDRESS });
      expect(imported).toMatchObject({ origin: 'import', channelId: 'acme-shop' });
      invisible = {
        "another channel's order": { uuid: otherChannel.body.uuid, orderNumber: 'OTHER-1' },
        'a merchant-entered order': { uuid: entered.uuid, orderNumber: 'ENTERED-1' },
        'an imported order': { uuid: imported.uuid, orderNumber: 'IMPORTED-1' },
      };
    }, 60_000);

    const ENDPOINTS: [method: string, path: (uuid: string) => string, body?: unknown][] = [
      ['GET', (u) => `/orders/${u}`],
      ['PUT', (u) => `/orders/${u}/confirm`, { shippingMethodCode: 'rm48' }],
      ['PUT', (u) => `/orders/${u}/lines`, { orderLines: lines(['MUG', 3]) }],
      ['PUT', (u) => `/orders/${u}/cancel`],
      ['DELETE', (u) => `/orders/${u}`],
    ];

    it.each(ENDPOINTS.map(([m, p, b]) => [`${m} ${p('{orderUuid}')}`, m, p, b] as const))(
      '%s: the same 404 body for a nonexistent uuid, a malformed one and every invisible order, which stays unchanged',
      async (_name, method, path, body) => {
        const call = (uuid: string) => api.call(method, path(uuid), body !== undefined ? { body } : {});
        const reference = await call(NONEXISTENT);
        expect(reference.status).toBe(404);
        expect(reference.body).toEqual(ORDER_NOT_FOUND);
        const malformed = await call('12345');
        expect([malformed.status, malformed.body]).toEqual([404, reference.body]);
        for (const [kind, order] of Object.entries(invisible)) {
          const before = await backOfficeOrder(sys, 'acme', order.uuid);
          const res = await call(order.uuid);
          expect({ kind, status: res.status, body: res.body }).toEqual({ kind, status: 404, body: reference.body });
          expect(await backOfficeOrder(sys, 'acme', order.uuid)).toEqual(before);
          expect((await orderHolds(sys, 'acme', order.uuid)).filter((h) => h.status === 'PLACED')).toEqual([]);
        }
      },
    );

    it('GET /orders lists none of them, filtered or not', async () => {
      const mine = await api.call('POST', '/orders', { body: { orderNumber: 'MINE-1', orderLines: lines(['MUG', 1]) } });
      const all = await api.call('GET', '/orders?per-page=100');
      expect(all.status).toBe(200);
      const uuids = all.body.data.map((o: { uuid: string }) => o.uuid);
      expect(uuids).toContain(mine.body.uuid);
      for (const order of Object.values(invisible)) {
        expect(uuids).not.toContain(order.uuid);
        const byNumber = await api.call('GET', `/orders?order-number=${order.orderNumber}`);
        expect(byNumber.body.data).toEqual([]);
      }
    });

    it('POST /orders with the orderNumber of an invisible order creates a new API order and leaves that one alone', async () => {
      for (const order of Object.values(invisible)) {
        const before = await backOfficeOrder(sys, 'acme', order.uuid);
        const res = await api.call('POST', '/orders', { body: { orderNumber: order.orderNumber, orderLines: lines(['CAP', 2]) } });
        expect(res.status).toBe(201);
        expect(res.body.uuid).not.toBe(order.uuid);
        expect(await backOfficeOrder(sys, 'acme', order.uuid)).toEqual(before);
      }
    });
  });

  describe("the team's state is the one the credentials check just found, not the orders service's events so far", () => {
    it('deactivated: refused from the very next request; activated again: accepted from the next, whatever the read model still says', async () => {
      const flip = await seedTeam(sys, 'flip', ['shop']);
      await seedCatalog(sys, 'flip');
      await ordersCaughtUp(sys);
      // An edge that looks credentials up on every request (as npm start runs it).
      const uncached = await sys.startEdge({ AUTH_CACHE_TTL_MS: '0' });
      const flipApi = ordersApi(sys, () => uncached, 'flip-shop', () => flip.shop!.token);
      const order = (n: string) => ({ orderNumber: n, orderLines: lines(['MUG', 1]), shippingDetails: GB_ADDRESS });
      expect((await flipApi.call('POST', '/orders', { body: order('F-1') })).status).toBe(201);

      await sys.graph(operator, UPDATE_TEAM, { code: 'flip', input: { active: false } });
      const refused = await flipApi.call('POST', '/orders', { body: order('F-2') });
      expect([refused.status, refused.body]).toEqual([403, TEAM_INACTIVE]);

      await ordersCaughtUp(sys); // the orders service now knows the team as inactive
      await sys.graph(operator, UPDATE_TEAM, { code: 'flip', input: { active: true } });
      expect((await flipApi.call('POST', '/orders', { body: order('F-3') })).status).toBe(201);
      await uncached.close();
    }, 60_000);
  });

  describe('an inactive team', () => {
    let sleepy: Record<string, IssuedToken>;
    let sleepyApi: OrdersApi;
    const orders: Record<string, any> = {};

    beforeAll(async () => {
      sleepy = await seedTeam(sys, 'sleepy', ['shop']);
      await seedCatalog(sys, 'sleepy');
      await ordersCaughtUp(sys);
      sleepyApi = ordersApi(sys, () => edge, 'sleepy-shop', () => sleepy.shop!.token);
      for (const name of ['draft', 'toConfirm', 'toCancel', 'confirmed', 'confirmedToDelete']) {
        const res = await sleepyApi.call('POST', '/orders', { body: { orderNumber: `S-${name}`, orderLines: lines(['MUG', 1], ['CAP', 1]), shippingDetails: GB_ADDRESS } });
        expect(res.status).toBe(201);
        orders[name] = res.body;
      }
      for (const name of ['confirmed', 'confirmedToDelete']) {
        const res = await sleepyApi.call('PUT', `/orders/${orders[name].uuid}/confirm`, { body: { shippingMethodCode: 'rm48' } });
        expect(res.status).toBe(202);
        orders[name] = res.body.data;
      }
      await sys.graph(operator, UPDATE_TEAM, { code: 'sleepy', input: { active: false } });
      await ordersCaughtUp(sys);
    }, 60_000);

    it('GET /team says so', async () => {
      const res = await edge.call('GET', '/v1/channels/sleepy-shop/team', { token: sleepy.shop!.token });
      expect(res.status).toBe(200);
      expect(res.body.data.active).toBe(false);
    });

    it('POST /orders: 403 team-inactive (a new order and a replay of a draft alike); nothing created', async () => {
      const created = await sleepyApi.call('POST', '/orders', { body: { orderNumber: 'S-new', orderLines: lines(['MUG', 1]) } });
      expect(created.status).toBe(403);
      expect(created.body).toEqual(TEAM_INACTIVE);
      const replay = await sleepyApi.call('POST', '/orders', { body: { orderNumber: 'S-draft', orderLines: lines(['CAP', 5]) } });
      expect(replay.status).toBe(403);
      expect(replay.body).toEqual(TEAM_INACTIVE);
      expect((await sleepyApi.call('GET', '/orders?order-number=S-new')).body.meta.total).toBe(0);
      expect((await sleepyApi.call('GET', `/orders/${orders.draft.uuid}`)).body.data).toEqual(orders.draft);
    });

    it('POST /orders replaying a confirmed order: the replay 409 of rule O2, not 403 (it neither creates nor amends)', async () => {
      const replay = await sleepyApi.call('POST', '/orders', { body: { orderNumber: 'S-confirmed', orderLines: lines(['CAP', 5]), strictSkus: true } });
      expect(replay.status).toBe(409);
      expect(replay.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}order-already-confirmed`, orderUuid: orders.confirmed.uuid, orderStatus: orders.confirmed.status, data: orders.confirmed });
      expect((await sleepyApi.call('GET', `/orders/${orders.confirmed.uuid}`)).body.data).toEqual(orders.confirmed);
    });

    it('validation comes first: an invalid body is 422, not 403', async () => {
      const create = await sleepyApi.call('POST', '/orders', { body: { orderNumber: 'x'.repeat(256), orderLines: lines(['MUG', 1]) } });
      expect(create.status).toBe(422);
      expect(create.body.violations).toEqual([{ property: 'orderNumber', message: expect.any(String) }]);
      const amend = await sleepyApi.call('PUT', `/orders/${orders.draft.uuid}/lines`, { body: { orderLines: [{ product: { sku: 'MUG' }, quantity: 1 }] } });
      expect(amend.status).toBe(422);
      const confirm = await sleepyApi.call('PUT', `/orders/${orders.toConfirm.uuid}/confirm`, { body: { shippingMethodCode: '' } });
      expect(confirm.status).toBe(422);
    });

    it('PUT lines: 403 team-inactive; the order unchanged', async () => {
      const res = await sleepyApi.call('PUT', `/orders/${orders.draft.uuid}/lines`, { body: { orderLines: lines(['MUG', 9]) } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(TEAM_INACTIVE);
      expect((await sleepyApi.call('GET', `/orders/${orders.draft.uuid}`)).body.data).toEqual(orders.draft);
    });

    it('PUT confirm of a draft: 403 team-inactive before anything changes (no holds, still a draft)', async () => {
      const res = await sleepyApi.call('PUT', `/orders/${orders.toConfirm.uuid}/confirm`, { body: { shippingMethodCode: 'rm48' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(TEAM_INACTIVE);
      expect((await sleepyApi.call('GET', `/orders/${orders.toConfirm.uuid}`)).body.data).toEqual(orders.toConfirm);
      expect(await orderHolds(sys, 'sleepy', orders.toConfirm.uuid)).toEqual([]);
    });

    it('PUT confirm of an already confirmed order: 202 with it unchanged', async () => {
      const res = await sleepyApi.call('PUT', `/orders/${orders.confirmed.uuid}/confirm`, { body: { shippingMethodCode: 'rm48' } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: orders.confirmed });
    });

    it('an order the channel cannot see is 404 first, for the inactive team too (confirm and amend alike)', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      const confirm = await sleepyApi.call('PUT', `/orders/${unknown}/confirm`, { body: {} });
      const amend = await sleepyApi.call('PUT', `/orders/${unknown}/lines`, { body: { orderLines: lines(['MUG', 1]) } });
      expect([confirm.status, confirm.body]).toEqual([404, ORDER_NOT_FOUND]);
      expect([amend.status, amend.body]).toEqual([404, ORDER_NOT_FOUND]);
    });

    it('reads work: GET /orders and GET /orders/{orderUuid}', async () => {
      const list = await sleepyApi.call('GET', '/orders');
      expect(list.status).toBe(200);
      expect(list.body.meta.total).toBe(5);
      const one = await sleepyApi.call('GET', `/orders/${orders.confirmed.uuid}`);
      expect(one.status).toBe(200);
    });

    it('cancelling works: PUT cancel and DELETE answer 200, holds released', async () => {
      const cancelled = await sleepyApi.call('PUT', `/orders/${orders.toCancel.uuid}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data.status).toBe('cancelled');
      const deleted = await sleepyApi.call('DELETE', `/orders/${orders.confirmedToDelete.uuid}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toMatchObject({ status: 'cancelled', confirmedAt: orders.confirmedToDelete.confirmedAt });
      expect((await orderHolds(sys, 'sleepy', orders.confirmedToDelete.uuid)).filter((h) => h.status === 'PLACED')).toEqual([]);
    });
  });
});
