import { createHmac } from 'node:crypto';
import {
  fulfilmentStatusUpdatedPayload,
  fulfilmentTrackingCreatedPayload,
  isResendableType,
  orderCreatedPayload,
  orderFulfillableStatusUpdatedPayload,
  orderStatusUpdatedPayload,
  serialiseBody,
  signBody,
  stockLevelUpdatedPayload,
  windowProductLevels,
  type OrderSnapshot,
} from './notifications';

const order: OrderSnapshot = {
  orderUuid: '6f1c8a52-3f0e-4d7a-9a51-0d3c2b1e4f5a',
  teamCode: 'acme',
  channelCode: 'shop',
  orderNumber: 'SO/1001',
  status: 'processing',
  fulfillableStatus: 'fulfillable',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T11:00:00.000Z',
  confirmedAt: '2026-11-20T10:30:00.000Z',
};

const COMMON = ['notificationType', 'tenantCode', 'channelCode', 'orderUuid', 'orderNumber', 'message', 'createdAt', 'updatedAt', 'confirmedAt'];

describe('webhook payloads (spec section 6)', () => {
  it('order-status-updated: common members in order, the two statuses, the message template', () => {
    const p = orderStatusUpdatedPayload(order, 'queued', 'processing');
    expect(Object.keys(p)).toEqual([...COMMON, 'originalOrderStatus', 'currentOrderStatus']);
    expect(p).toMatchObject({ notificationType: 'order-status-updated', tenantCode: 'acme', channelCode: 'shop', originalOrderStatus: 'queued', currentOrderStatus: 'processing' });
    expect(p.message).toBe('Order "SO/1001" status has changed from "queued" to "processing"');
  });

  it('a resent order-status-updated has originalOrderStatus null and its message still follows the template', () => {
    const p = orderStatusUpdatedPayload(order, null, 'processing');
    expect(p.originalOrderStatus).toBeNull();
    expect(p.message).toBe('Order "SO/1001" status has changed from "" to "processing"');
    expect(p.message).toMatch(/^Order "[^"]*" status has changed from "[^"]*" to "[^"]*"$/);
  });

  it('confirmedAt is null for a draft, never absent', () => {
    const p = orderCreatedPayload({ ...order, status: 'draft', confirmedAt: null });
    expect(p).toHaveProperty('confirmedAt', null);
    expect(Object.keys(p)).toEqual([...COMMON, 'orderStatus', 'fulfillableStatus']);
    expect(p.message).toBe('Order "SO/1001" has been created');
  });

  it('order-fulfillable-status-updated: both fulfillable statuses and the order status', () => {
    const p = orderFulfillableStatusUpdatedPayload(order, 'fulfillable', 'not-fulfillable');
    expect(Object.keys(p)).toEqual([...COMMON, 'originalFulfillableStatus', 'currentFulfillableStatus', 'orderStatus']);
    expect(p.message).toBe('Order "SO/1001" fulfillable status has changed from "fulfillable" to "not-fulfillable"');
    const resent = orderFulfillableStatusUpdatedPayload(order, null, 'not-fulfillable');
    expect(resent.originalFulfillableStatus).toBeNull();
    expect(resent.message).toBe('Order "SO/1001" fulfillable status has changed from "" to "not-fulfillable"');
  });

  it('fulfilment-status-updated: products is always an array of SKUs', () => {
    const p = fulfilmentStatusUpdatedPayload(order, 'f-1', 'draft', 'dispatched', ['SKU-1', 'SKU-2']);
    expect(Object.keys(p)).toEqual([...COMMON, 'originalFulfilmentStatus', 'currentFulfilmentStatus', 'orderStatus', 'products', 'fulfilmentUuid']);
    expect(p.products).toEqual(['SKU-1', 'SKU-2']);
    expect(JSON.parse(serialiseBody(fulfilmentStatusUpdatedPayload(order, 'f-1', 'draft', 'dispatched', [])).toString()).products).toEqual([]);
  });

  it('fulfilment-tracking-created: tracking objects with recommended and legacy keys and methodCode', () => {
    const p = fulfilmentTrackingCreatedPayload(order, 'f-1', [
      { carrier: 'DHL', trackingNumber: 'JD0001', trackingUrl: 'https://track.example.com/JD0001', methodCode: 'dhl-express', methodName: 'DHL Express' },
    ]);
    expect(p.currentTrackingDetails).toEqual([
      {
        carrier: 'DHL',
        trackingNumber: 'JD0001',
        trackingUrl: 'https://track.example.com/JD0001',
        courier: 'DHL',
        number: 'JD0001',
        url: 'https://track.example.com/JD0001',
        methodCode: 'dhl-express',
        methodName: 'DHL Express',
      },
    ]);
    expect(JSON.parse(serialiseBody(fulfilmentTrackingCreatedPayload(order, 'f-1', [])).toString()).currentTrackingDetails).toEqual([]);
  });

  it('stock-level-updated: no order members; products with sku, productUuid and stock', () => {
    const p = stockLevelUpdatedPayload({
      teamCode: 'acme',
      channelCode: 'shop',
      changedAt: '2026-11-20T10:09:00.000Z',
      products: [{ sku: 'SKU-1', productUuid: 'a8a1c0de-0000-4000-8000-000000000001', stock: 10004 }],
    });
    expect(Object.keys(p)).toEqual(['notificationType', 'tenantCode', 'channelCode', 'changedAt', 'products', 'message']);
    expect(p.message).toBe('The stock level of 1 product has changed');
  });

  it('a closing window reports its products with their figures now; a deleted one and one without a SKU are left out', () => {
    const figures = new Map<string, { stock: number; sku?: string | null }>([
      ['p1', { stock: 4, sku: 'SKU-1-RENAMED' }],
      ['p2', { stock: 0 }],
      ['p4', { stock: 7, sku: null }],
    ]);
    const window = [
      { productUuid: 'p1', sku: 'SKU-1' },
      { productUuid: 'p2', sku: 'SKU-2' },
      { productUuid: 'p3', sku: 'SKU-3' },
      { productUuid: 'p4', sku: 'SKU-4' },
      { productUuid: 'p5', sku: null },
    ];
    expect(windowProductLevels(window, figures)).toEqual([
      { sku: 'SKU-1-RENAMED', productUuid: 'p1', stock: 4 },
      { sku: 'SKU-2', productUuid: 'p2', stock: 0 },
    ]);
  });

  it('serialises once with forward slashes escaped, and the result is the same JSON', () => {
    const body = serialiseBody(orderCreatedPayload(order));
    const text = body.toString('utf8');
    expect(text).toContain('"orderNumber":"SO\\/1001"');
    expect(text).not.toMatch(/[^\\]\//);
    expect(JSON.parse(text)).toEqual(orderCreatedPayload(order));
  });

  it('keeps non-ASCII text as UTF-8 bytes', () => {
    const body = serialiseBody(orderCreatedPayload({ ...order, orderNumber: 'Bestellung Ä/1' }));
    expect(body.toString('utf8')).toContain('Bestellung Ä\\/1');
    expect(body.length).toBe(Buffer.byteLength(body.toString('utf8')));
  });

  it('signs with lowercase hex HMAC-SHA256 over the exact bytes, keyed with the secret string', () => {
    const body = serialiseBody(orderCreatedPayload(order));
    const secret = 'whsec_abc';
    const signature = signBody(body, secret);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signature).toBe(createHmac('sha256', 'whsec_abc').update(body).digest('hex'));
    // Re-serialising without the escapes changes the bytes and so the signature.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(signBody(reserialised, secret)).not.toBe(signature);
  });

  it('only order-level types can be resent', () => {
    expect(['order-created', 'order-status-updated', 'order-fulfillable-status-updated'].every(isResendableType)).toBe(true);
    expect(['fulfilment-status-updated', 'fulfilment-tracking-created', 'stock-level-updated', 'ORDER_CREATED', ''].some(isResendableType)).toBe(false);
  });
});
