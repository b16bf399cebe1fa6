import { randomUUID } from 'node:crypto';
import { uniqueSuffix } from '@pf/platform/testing/infra';
import {
  AMEND_ORDER,
  CANCEL_ORDER,
  CONFIRM_ORDER,
  CREATE_ORDER,
  createTeam,
  ENTER_ORDER,
  IMPORT_ORDERS,
  ORDER,
  ORDERS,
  orderInput,
  startSystem,
  type OrdersSystem,
  type TeamFixture,
} from './harness';

describe('rule O1: a channel sees only the orders created through the API on it', () => {
  let s: OrdersSystem;
  let t: TeamFixture;
  const hidden: Record<string, string> = {};
  let own: string;

  beforeAll(async () => {
    s = await startSystem();
    t = await createTeam(s);
    own = (await s.ok<any>(t.shop, CREATE_ORDER, { input: orderInput('own-1') })).createOrder.uuid;
    hidden['another channel\'s order'] = (await s.ok<any>(t.other, CREATE_ORDER, { input: orderInput('other-1') })).createOrder.uuid;
    hidden['a merchant-entered order'] = (await s.ok<any>(t.backOffice, ENTER_ORDER, { input: orderInput('entered-1') })).enterOrder.uuid;
    // Imported onto the very channel asking: still not the channel's own (it did not create it).
    hidden['an imported order'] = (await s.ok<any>(t.backOffice, IMPORT_ORDERS, { channelId: `${t.teamCode}-shop`, orders: [orderInput('imported-1')] })).importOrders.orders[0].uuid;
    const otherTeam = await createTeam(s, `x${uniqueSuffix()}`, { stock: { 'SKU-A': { leeds: 5 } } });
    hidden['another team\'s order'] = (await s.ok<any>(otherTeam.shop, CREATE_ORDER, { input: orderInput('foreign-1') })).createOrder.uuid;
  }, 90_000);
  afterAll(async () => s?.close(), 30_000);

  const operations: Record<string, (uuid: string) => Promise<any>> = {
    'GET /orders/{uuid}': (uuid) => s.gql(s.urls.orders, t.shop, ORDER, { uuid }),
    'PUT .../confirm': (uuid) => s.gql(s.urls.orders, t.shop, CONFIRM_ORDER, { uuid }),
    'PUT .../lines': (uuid) => s.gql(s.urls.orders, t.shop, AMEND_ORDER, { uuid, input: { orderLines: [{ lineNumber: 1, product: { sku: 'SKU-A' }, quantity: 9 }] } }),
    'PUT .../cancel and DELETE': (uuid) => s.gql(s.urls.orders, t.shop, CANCEL_ORDER, { uuid }),
  };
  const snapshot = async (uuid: string) => (await s.ok<any>({ kind: 'service', service: 'ops' }, ORDER, { uuid })).order;

  describe.each(Object.keys(operations))('%s', (operation) => {
    it.each(['another channel\'s order', 'a merchant-entered order', 'an imported order', 'another team\'s order'])(
      'answers %s exactly like a uuid that does not exist, and leaves it unchanged',
      async (kind) => {
        const nonexistent = await operations[operation]!(randomUUID());
        expect(nonexistent.errors).toHaveLength(1);
        expect(nonexistent.errors[0].extensions.problem).toEqual({ problemType: 'not-found', detail: 'This order could not be found.', extensions: {} });
        const before = await snapshot(hidden[kind]!);
        const res = await operations[operation]!(hidden[kind]!);
        expect(res.data).toEqual(nonexistent.data);
        expect(res.errors.map((e: any) => ({ message: e.message, extensions: e.extensions }))).toEqual(
          nonexistent.errors.map((e: any) => ({ message: e.message, extensions: e.extensions })),
        );
        expect(await snapshot(hidden[kind]!)).toEqual(before);
      },
    );
  });

  it('a malformed uuid is not found either', async () => {
    const res = await operations['GET /orders/{uuid}']!('not-a-uuid');
    expect(res.errors[0].extensions.problem).toEqual({ problemType: 'not-found', detail: 'This order could not be found.', extensions: {} });
  });

  it('GET /orders lists only the channel\'s own API orders; the back-office sees every channel of its team', async () => {
    const listed = (await s.ok<any>(t.shop, ORDERS, { perPage: 100 })).orders;
    expect(listed.items.map((o: any) => o.uuid)).toEqual([own]);
    // Filters cannot widen the scope.
    const widened = (await s.ok<any>(t.shop, ORDERS, { filter: { channelId: `${t.teamCode}-other`, origin: 'import' } })).orders;
    expect(widened.items.map((o: any) => o.uuid)).toEqual([own]);
    const all = (await s.ok<any>(t.backOffice, ORDERS, { perPage: 100 })).orders;
    expect(all.items.map((o: any) => [o.origin, o.channelId]).sort()).toEqual(
      [
        ['api', `${t.teamCode}-other`],
        ['api', `${t.teamCode}-shop`],
        ['import', `${t.teamCode}-shop`],
        ['merchant-app', `${t.teamCode}-standard`],
      ].sort(),
    );
    const imports = (await s.ok<any>(t.backOffice, ORDERS, { filter: { origin: 'import' } })).orders;
    expect(imports.items.map((o: any) => o.uuid)).toEqual([hidden['an imported order']]);
  });

  it('the entity reference resolves to null for an order the caller may not see', async () => {
    const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Order { uuid } } }`;
    const res = await s.ok<any>(t.shop, query, { r: [{ __typename: 'Order', uuid: own }, { __typename: 'Order', uuid: hidden['an imported order'] }] });
    expect(res._entities).toEqual([{ uuid: own }, null]);
  });
});
