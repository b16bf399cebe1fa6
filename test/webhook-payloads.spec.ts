import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import {
  fulfilmentStatusUpdatedPayload,
  fulfilmentTrackingCreatedPayload,
  NOTIFICATION_TYPES,
  orderCreatedPayload,
  orderFulfillableStatusUpdatedPayload,
  orderStatusUpdatedPayload,
  serialiseBody,
  stockLevelUpdatedPayload,
  type OrderSnapshot,
} from '../services/webhooks/src/domain/notifications';

/**
 * The webhooks the webhooks service sends are part of the Channel API contract: the OpenAPI
 * document (the REST edge's) describes each as a callback of `POST /webhooks`. Every payload the
 * service builds must match its schema, and carry no member the document does not name.
 */
type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };
const document = parse(readFileSync(path.resolve(__dirname, '../services/rest-edge/openapi/channel-api.yaml'), 'utf8')) as {
  paths: Record<string, Record<string, { callbacks?: Record<string, Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>> }>>;
  components: { schemas: Record<string, Schema> };
};

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, 'channel-api');

function resolve(schema: Schema): Schema {
  return schema.$ref ? resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!) : schema;
}

/** Every member a schema documents with its schema, through $ref and allOf. */
function documentedMembers(schema: Schema): Map<string, Schema> {
  const s = resolve(schema);
  const members = new Map(Object.entries(s.properties ?? {}));
  for (const part of s.allOf ?? []) for (const [name, member] of documentedMembers(part)) members.set(name, member);
  return members;
}

/** Paths of the members of `value`, at any depth, that `schema` does not document. */
function undocumentedMembers(value: unknown, schema: Schema, at = ''): string[] {
  const s = resolve(schema);
  if (Array.isArray(value)) return s.items ? value.flatMap((item, i) => undocumentedMembers(item, s.items!, `${at}[${i}]`)) : [];
  if (value === null || typeof value !== 'object') return [];
  const documented = documentedMembers(s);
  return Object.entries(value).flatMap(([name, member]) => {
    const path = at ? `${at}.${name}` : name;
    const memberSchema = documented.get(name);
    return memberSchema ? undocumentedMembers(member, memberSchema, path) : [path];
  });
}

/** notificationType → the request body schema of its callback. */
const callbackSchemas = new Map<string, Schema>();
for (const callback of Object.values(document.paths['/webhooks']!.post!.callbacks ?? {})) {
  for (const expression of Object.values(callback)) {
    const schema = expression.post.requestBody.content['application/json']!.schema;
    const typeSchema = [resolve(schema), ...(resolve(schema).allOf ?? []).map(resolve)].find((s) => s.properties?.notificationType?.enum);
    callbackSchemas.set(String(typeSchema!.properties!.notificationType!.enum![0]), schema);
  }
}

function validatorFor(type: string): ValidateFunction {
  const schema = callbackSchemas.get(type);
  if (!schema) throw new Error(`no callback documents ${type}`);
  return ajv.compile({ $ref: `channel-api${schema.$ref}` });
}

/** What a receiver parses: the bytes as sent. */
const asReceived = (payload: object) => JSON.parse(serialiseBody(payload).toString('utf8')) as Record<string, unknown>;

function expectDocumented(type: string, payload: object) {
  const body = asReceived(payload);
  const validate = validatorFor(type);
  expect({ type, valid: validate(body), errors: validate.errors ?? null }).toEqual({ type, valid: true, errors: null });
  expect(undocumentedMembers(body, callbackSchemas.get(type)!)).toEqual([]);
}

const order: OrderSnapshot = {
  orderUuid: '0f8c2d5e-3b7a-4c1d-9e6f-5a4b3c2d1e0f',
  teamCode: 'acme',
  channelCode: 'shop',
  orderNumber: 'A/10042',
  status: 'queued',
  fulfillableStatus: 'fulfillable',
  createdAt: '2026-11-02T10:15:00.000Z',
  updatedAt: '2026-11-02T10:16:30.000Z',
  confirmedAt: '2026-11-02T10:16:30.000Z',
};
const draft: OrderSnapshot = { ...order, status: 'draft', confirmedAt: null };
const fulfilmentUuid = '6a1f0c3e-2d4b-4e5f-8a7b-9c0d1e2f3a4b';

describe('webhook payloads against the OpenAPI document', () => {
  it('documents one callback for each notification type the service sends', () => {
    expect([...callbackSchemas.keys()].sort()).toEqual([...NOTIFICATION_TYPES].sort());
  });

  it.each([
    ['order-created', orderCreatedPayload(draft)],
    ['order-status-updated', orderStatusUpdatedPayload(order, 'draft', 'queued')],
    ['order-status-updated', orderStatusUpdatedPayload(order, null, 'queued')],
    ['order-fulfillable-status-updated', orderFulfillableStatusUpdatedPayload(order, 'fulfillable', 'not-fulfillable')],
    ['order-fulfillable-status-updated', orderFulfillableStatusUpdatedPayload(draft, null, 'not-fulfillable')],
    ['fulfilment-status-updated', fulfilmentStatusUpdatedPayload(order, fulfilmentUuid, 'processing', 'dispatched', ['TSHIRT-BLK-M', 'MUG/WHT'])],
    ['fulfilment-status-updated', fulfilmentStatusUpdatedPayload(order, fulfilmentUuid, 'draft', 'cancelled', [])],
    [
      'fulfilment-tracking-created',
      fulfilmentTrackingCreatedPayload(order, fulfilmentUuid, [
        { carrier: 'Royal Mail', trackingNumber: 'RM1', trackingUrl: 'https://track.example/RM1', methodCode: 'RM48', methodName: 'Tracked 48' },
        { carrier: null, trackingNumber: null, trackingUrl: null, methodCode: null, methodName: null },
      ]),
    ],
    ['stock-level-updated', stockLevelUpdatedPayload({ teamCode: 'acme', channelCode: 'shop', changedAt: '2026-11-02T10:20:00.000Z', products: [{ sku: 'MUG', productUuid: fulfilmentUuid, stock: 10_004 }] })],
  ])('%s matches its schema and has no undocumented member', (type, payload) => {
    expectDocumented(type, payload);
  });

  it('the check can fail: a payload missing a member, or with one the document does not name at any depth, is caught', () => {
    const { confirmedAt: _dropped, ...withoutConfirmedAt } = orderStatusUpdatedPayload(order, 'draft', 'queued');
    expect(validatorFor('order-status-updated')(asReceived(withoutConfirmedAt))).toBe(false);

    const tracking = fulfilmentTrackingCreatedPayload(order, fulfilmentUuid, [
      { carrier: 'DPD', trackingNumber: '1', trackingUrl: null, methodCode: 'NEXT', methodName: 'Next day' },
    ]);
    const extended = { ...tracking, surprise: 1, currentTrackingDetails: [{ ...tracking.currentTrackingDetails[0]!, weightGrams: 250 }] };
    expect(undocumentedMembers(asReceived(extended), callbackSchemas.get('fulfilment-tracking-created')!)).toEqual([
      'currentTrackingDetails[0].weightGrams',
      'surprise',
    ]);
    const stock = stockLevelUpdatedPayload({ teamCode: 'acme', channelCode: 'shop', changedAt: '2026-11-02T10:20:00.000Z', products: [{ sku: 'MUG', productUuid: fulfilmentUuid, stock: 1 }] });
    const withExtraProductMember = { ...stock, products: [{ ...stock.products[0]!, activeState: 'active' }] };
    expect(undocumentedMembers(asReceived(withExtraProductMember), callbackSchemas.get('stock-level-updated')!)).toEqual(['products[0].activeState']);
  });
});
