import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { eventually } from '@pf/platform/testing/infra';
import { createProduct } from './support/catalog';
import {
  backOffice,
  closeAgents,
  operator,
  seedTeam,
  startSystem,
  UPDATE_TEAM,
  type CallOptions,
  type EdgeResponse,
  type IssuedToken,
  type RunningEdge,
  type System,
} from './support/system';

// Public IP literals: rule W1 needs no DNS for them, and registration sends nothing to them.
const URL_V6 = 'https://[2606:4700:4700::1111]/hooks/{notificationType}';
const URL_V4 = 'https://1.1.1.1/hooks?event={notificationType}';
const NONEXISTENT_ORDER = '00000000-0000-4000-8000-000000000000';
const SECRET = /^whsec_\S+$/;

const violationOf = (property: string) => ({
  type: `${PROBLEM_TYPE_BASE}validation-failed`,
  title: 'Unprocessable Entity',
  status: 422,
  violations: expect.arrayContaining([expect.objectContaining({ property })]),
});

const GB_ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Park Row',
  city: 'Leeds',
  postalCode: 'LS1 5HD',
  country: { name: 'United Kingdom', code: 'GB' },
  email: 'ada@example.com',
};

/**
 * `POST /webhooks`, `POST /webhooks/secret/rotate` and `POST /webhooks/resend` through the edge
 * to the real webhooks subgraph (its read models fed by the accounts and orders services' events);
 * every response is checked against the OpenAPI document.
 */
describe('webhooks endpoints', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let idle: Record<string, IssuedToken>;

  /** Calls `{path}` on a channel and checks the answer against the document's operation. */
  async function call(method: 'POST', template: string, channel: string, token: string, opts: CallOptions = {}): Promise<EdgeResponse> {
    const res = await edge.call(method, `/v1/channels/${channel}${template}`, { token, ...opts });
    sys.contract.check(method, template, res);
    return res;
  }
  const register = (channel: string, token: string, body: unknown) => call('POST', '/webhooks', channel, token, { body });
  const resend = (channel: string, token: string, body: unknown) => call('POST', '/webhooks/resend', channel, token, { body });

  beforeAll(async () => {
    sys = await startSystem({ catalog: true, orders: true, webhooks: true });
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop', 'other', 'bare']);
    idle = await seedTeam(sys, 'idle', ['shop']);
  }, 120_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  describe('POST /webhooks', () => {
    let firstSecret: string;

    it('registers the URL and answers the channel secret (200, data.webhookDetail)', async () => {
      // The webhooks service learns of the channel from accounts events: wait until it has.
      const res = await eventually(async () => {
        const r = await register('acme-shop', acme.shop!.token, { url: URL_V6 });
        return r.status === 200 ? r : undefined;
      });
      expect(res.headers['service-api-version']).toBe('1.2.0');
      // The URL as it was sent (W1 counts its characters; every delivery judges it again).
      expect(res.body).toEqual({ data: { webhookDetail: { url: URL_V6, secret: expect.stringMatching(SECRET) } } });
      firstSecret = res.body.data.webhookDetail.secret;
    });

    it('registering again replaces the URL and answers the same secret', async () => {
      const res = await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      expect(res.status).toBe(200);
      expect(res.body.data.webhookDetail.secret).toBe(firstSecret);
      expect(res.body.data.webhookDetail.url).toContain('https://1.1.1.1/hooks?event=');
      const { channelWebhook } = await sys.graph(backOffice('acme'), 'query ($id: ID) { channelWebhook(channelId: $id) { url } }', { id: 'acme-shop' });
      expect(channelWebhook.url).toBe(res.body.data.webhookDetail.url);
    });

    it.each([
      ['http (not https)', 'http://example.com/'],
      ['localhost', 'https://localhost/'],
      ['a private address', 'https://10.0.0.1/'],
      ['loopback in IPv6-mapped form', 'https://[::ffff:127.0.0.1]/'],
      ['user info', 'https://user:pw@1.1.1.1/'],
      ['a fragment', 'https://1.1.1.1/#top'],
      ['the placeholder in the host', 'https://{notificationType}.example.com/'],
      ['not a URL', 'hooks'],
      ['over 200 characters', `https://1.1.1.1/${'a'.repeat(200)}`],
    ])('refuses %s with 422 naming url, and keeps the registered URL', async (_name, url) => {
      await register('acme-other', acme.other!.token, { url: URL_V4 });
      const stored = () => sys.graph(backOffice('acme'), 'query ($id: ID) { channelWebhook(channelId: $id) { url } }', { id: 'acme-other' });
      const before = await stored();
      expect(before.channelWebhook.url).toContain('https://1.1.1.1/hooks?event=');
      const res = await register('acme-other', acme.other!.token, { url });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject(violationOf('url'));
      // Read back, not registered again: registering again would store URL_V4 whatever happened.
      expect(await stored()).toEqual(before);
    });

    it.each([
      ['no url', {}],
      ['a url that is not a string', { url: 42 }],
      ['a null url', { url: null }],
    ])('answers 422 naming url for %s', async (_name, body) => {
      const res = await register('acme-shop', acme.shop!.token, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject(violationOf('url'));
    });

    it('an inactive team: an invalid URL is 422, only a valid one is 403 team-inactive', async () => {
      await eventually(async () => ((await register('idle-shop', idle.shop!.token, { url: URL_V4 })).status === 200 ? true : undefined));
      await sys.graph(operator, UPDATE_TEAM, { code: 'idle', input: { active: false } });
      // The webhooks service hears of the deactivation through the team's event.
      const refused = await eventually(async () => {
        const r = await register('idle-shop', idle.shop!.token, { url: URL_V6 });
        return r.status === 403 ? r : undefined;
      });
      expect(refused.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}team-inactive`, title: 'Forbidden', status: 403 });
      for (const url of ['http://example.com/', 'https://localhost/', 'https://10.0.0.1/']) {
        const res = await register('idle-shop', idle.shop!.token, { url });
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject(violationOf('url'));
      }
      const missing = await register('idle-shop', idle.shop!.token, {});
      expect(missing.status).toBe(422);
    });
  });

  describe('POST /webhooks/secret/rotate', () => {
    it('answers a new secret in the same shape, which POST /webhooks then answers', async () => {
      const before = await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      const rotated = await call('POST', '/webhooks/secret/rotate', 'acme-shop', acme.shop!.token);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({ data: { webhookDetail: { url: before.body.data.webhookDetail.url, secret: expect.stringMatching(SECRET) } } });
      expect(rotated.body.data.webhookDetail.secret).not.toBe(before.body.data.webhookDetail.secret);
      // A body, though none is expected, changes nothing.
      const again = await call('POST', '/webhooks/secret/rotate', 'acme-shop', acme.shop!.token, { body: {} });
      expect(again.status).toBe(200);
      expect(again.body.data.webhookDetail.secret).not.toBe(rotated.body.data.webhookDetail.secret);
      const after = await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      expect(after.body.data.webhookDetail.secret).toBe(again.body.data.webhookDetail.secret);
    });

    it('the path in other letters is a 404 and rotates nothing (POST .../WEBHOOKS/SECRET/ROTATE)', async () => {
      const before = await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      const res = await edge.call('POST', '/v1/channels/acme-shop/WEBHOOKS/SECRET/ROTATE', { token: acme.shop!.token });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe(`${PROBLEM_TYPE_BASE}not-found`);
      const after = await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      expect(after.body.data.webhookDetail.secret).toBe(before.body.data.webhookDetail.secret);
    });
  });

  describe('POST /webhooks/resend', () => {
    let shopOrder: string;
    let otherOrder: string;
    let bareOrder: string;

    const createOrder = async (channel: string, token: string, orderNumber: string): Promise<string> => {
      const res = await edge.call('POST', `/v1/channels/${channel}/orders`, {
        token,
        body: { orderNumber, orderLines: [{ lineNumber: 1, product: { sku: 'MUG' }, quantity: 1 }], shippingDetails: GB_ADDRESS },
      });
      expect(res.status).toBe(201);
      return res.body.uuid as string;
    };

    beforeAll(async () => {
      await createProduct(sys, 'acme', { sku: 'MUG' });
      shopOrder = await createOrder('acme-shop', acme.shop!.token, 'SHOP-1');
      otherOrder = await createOrder('acme-other', acme.other!.token, 'OTHER-1');
      bareOrder = await createOrder('acme-bare', acme.bare!.token, 'BARE-1');
      await register('acme-shop', acme.shop!.token, { url: URL_V4 });
      await register('acme-other', acme.other!.token, { url: URL_V4 });
    }, 60_000);

    it('an order is the channel\'s to resend the moment POST /orders answered (the orders service is asked, not the events read so far)', async () => {
      const fresh = await createOrder('acme-other', acme.other!.token, `OTHER-NOW-${Date.now()}`);
      const res = await resend('acme-other', acme.other!.token, { orderUuid: fresh, notificationType: 'order-created' });
      expect(res.status).toBe(202);
      // and the other channel's own order is refused by the first channel just as promptly (rule O1)
      const refused = await resend('acme-shop', acme.shop!.token, { orderUuid: fresh, notificationType: 'order-created' });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject(violationOf('orderUuid'));
    });

    it.each(['order-created', 'order-status-updated', 'order-fulfillable-status-updated'])('queues %s for an order of the channel (202)', async (type) => {
      const res = await resend('acme-shop', acme.shop!.token, { orderUuid: shopOrder, notificationType: type });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        data: { deliveryId: expect.any(String), orderUuid: shopOrder, notificationType: type, status: 'pending', queuedAt: expect.any(String) },
      });
      expect(Number.isNaN(Date.parse(res.body.data.queuedAt))).toBe(false);
    });

    it('rule O1: another channel\'s order, an unknown uuid and a malformed one get the same 422 naming orderUuid', async () => {
      const answers = [];
      for (const orderUuid of [otherOrder, NONEXISTENT_ORDER, 'not-a-uuid', otherOrder.toUpperCase()]) {
        const res = await resend('acme-shop', acme.shop!.token, { orderUuid, notificationType: 'order-created' });
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject(violationOf('orderUuid'));
        answers.push(res.body);
      }
      for (const body of answers) expect(body).toEqual(answers[0]);
    });

    it('answers 422 naming url for a channel without a registered URL (rule W2)', async () => {
      const res = await resend('acme-bare', acme.bare!.token, { orderUuid: bareOrder, notificationType: 'order-created' });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject(violationOf('url'));
    });

    it('answers 422 naming notificationType for another type, and naming each missing field', async () => {
      const badType = await resend('acme-shop', acme.shop!.token, { orderUuid: shopOrder, notificationType: 'stock-level-updated' });
      expect(badType.status).toBe(422);
      expect(badType.body).toMatchObject(violationOf('notificationType'));
      const missing = await resend('acme-shop', acme.shop!.token, {});
      expect(missing.status).toBe(422);
      expect(missing.body).toMatchObject(violationOf('orderUuid'));
      expect(missing.body).toMatchObject(violationOf('notificationType'));
    });
  });

  it('another channel of the token\'s team is 404; no token is 401', async () => {
    expect((await register('acme-other', acme.shop!.token, { url: URL_V4 })).status).toBe(404);
    expect((await call('POST', '/webhooks/secret/rotate', 'acme-shop', '')).status).toBe(401);
  });
});
