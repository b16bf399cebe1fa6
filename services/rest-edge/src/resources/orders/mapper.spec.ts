import { toAmendment, toAmendOrderLinesInput, toCreateOrderInput, toOrderResource } from './mapper';
import type { OrderFields, TrackingDetailFields } from './operation';

const tracking: TrackingDetailFields = {
  carrier: 'Royal Mail',
  trackingNumber: 'RM1GB',
  trackingUrl: 'https://track.example/RM1GB',
  courier: 'Royal Mail',
  number: 'RM1GB',
  url: 'https://track.example/RM1GB',
  methodName: 'Tracked 48',
  fulfilmentUuid: '6d1f0c1e-0000-4000-8000-000000000001',
  createdAt: '2026-10-20T10:00:00.000Z',
};

const order: OrderFields = {
  uuid: '0f8c2d5e-3b7a-4c1d-9e6f-5a4b3c2d1e0f',
  orderNumber: '1001',
  printTrailOrderNumber: 'PT-ABCDEFGHJKLM',
  status: 'queued',
  fulfillableStatus: 'fulfillable',
  fulfillableFrom: '2026-10-20T10:15:00.000Z',
  scheduledAt: null,
  confirmedAt: '2026-10-20T10:00:00.000Z',
  createdAt: '2026-10-20T09:00:00.000Z',
  updatedAt: '2026-10-20T10:00:00.000Z',
  stockHeld: true,
  shippingDetails: {
    firstName: 'Ada',
    lastName: null,
    companyName: null,
    address1: '1 Road',
    address2: null,
    address3: null,
    address4: null,
    city: 'Leeds',
    postalCode: 'LS1 1AA',
    state: null,
    country: { name: 'United Kingdom', code: 'GB' },
    email: null,
    phone: null,
  },
  orderLines: [{ lineNumber: 1, product: { sku: 'MUG', uuid: 'a1b2c3d4-0000-4000-8000-000000000001' }, quantity: 2 }],
  fulfilments: [
    {
      uuid: '6d1f0c1e-0000-4000-8000-000000000001',
      status: 'draft',
      supplierLocation: { code: 'leeds', countryCode: 'GB' },
      shippingMethod: { code: 'rm48', name: 'Royal Mail 48' },
      lines: [{ lineNumber: 1, sku: 'MUG', quantity: 2 }],
      trackingDetails: [tracking],
      createdAt: '2026-10-20T10:00:00.000Z',
      updatedAt: '2026-10-20T10:00:00.000Z',
    },
  ],
  trackingDetails: [tracking],
};

describe('toOrderResource', () => {
  it('keeps every member of the contract, null timestamps present as null', () => {
    const r = toOrderResource({ ...order, status: 'draft', confirmedAt: null, fulfilments: [], trackingDetails: [] });
    expect(Object.keys(r)).toEqual([
      'uuid',
      'orderUuid',
      'orderNumber',
      'printTrailOrderNumber',
      'status',
      'fulfillableStatus',
      'fulfillableFrom',
      'scheduledAt',
      'confirmedAt',
      'createdAt',
      'updatedAt',
      'stockHeld',
      'shippingDetails',
      'orderLines',
      'fulfilments',
      'trackingDetails',
    ]);
    expect(r.scheduledAt).toBeNull();
    expect(r.confirmedAt).toBeNull();
  });

  it('gives shipping details every member, also when the order has none at all', () => {
    expect(toOrderResource(order).shippingDetails).toEqual({
      firstName: 'Ada',
      lastName: null,
      companyName: null,
      address1: '1 Road',
      address2: null,
      address3: null,
      address4: null,
      city: 'Leeds',
      postalCode: 'LS1 1AA',
      state: { name: null, code: null },
      country: { name: 'United Kingdom', code: 'GB' },
      email: null,
      phone: null,
    });
    const none = toOrderResource({ ...order, shippingDetails: null }).shippingDetails;
    expect(Object.values(none).filter((v) => v !== null && typeof v !== 'object')).toEqual([]);
    expect(none.state).toEqual({ name: null, code: null });
  });

  it('renders tracking details with recommended and legacy keys and never a methodCode', () => {
    // A methodCode the edge never asks for, and null legacy keys the edge fills from the recommended ones.
    const withCode = { ...tracking, methodCode: 'rm48', courier: null, number: null, url: null };
    const r = toOrderResource({ ...order, trackingDetails: [withCode], fulfilments: [{ ...order.fulfilments[0]!, trackingDetails: [withCode] }] });
    for (const t of [r.trackingDetails[0]!, r.fulfilments[0]!.trackingDetails[0]!]) {
      expect(t).not.toHaveProperty('methodCode');
      expect(t).toMatchObject({
        carrier: 'Royal Mail',
        courier: 'Royal Mail',
        trackingNumber: 'RM1GB',
        number: 'RM1GB',
        trackingUrl: 'https://track.example/RM1GB',
        url: 'https://track.example/RM1GB',
        methodName: 'Tracked 48',
      });
    }
  });
});

describe('request bodies to GraphQL inputs', () => {
  it('copies only the documented members (a client may send members of newer versions)', () => {
    const body = {
      orderNumber: '1001',
      orderLines: [{ product: { sku: 'MUG', colour: 'red' }, quantity: 1, note: 'x' }],
      shippingDetails: { address1: '1 Road', country: { code: 'GB', flag: true }, fax: '0' },
      reserve: true,
      giftWrap: true,
    };
    expect(toCreateOrderInput(body as never)).toEqual({
      orderNumber: '1001',
      orderLines: [{ product: { sku: 'MUG' }, quantity: 1 }],
      shippingDetails: { address1: '1 Road', country: { code: 'GB' } },
      reserve: true,
    });
  });

  it('passes every documented member of create and amend', () => {
    const body = {
      orderNumber: 'n',
      printTrailOrderNumber: 'p',
      orderLines: [{ lineNumber: 3, product: { sku: 's' }, quantity: 2 }],
      scheduledAt: '2026-10-21T08:00:00Z',
      strictSkus: true,
      reserve: false,
    };
    expect(toCreateOrderInput(body)).toEqual(body);
    expect(toAmendOrderLinesInput({ orderLines: body.orderLines, strictSkus: false })).toEqual({ orderLines: body.orderLines, strictSkus: false });
  });
});

describe('toAmendment', () => {
  it('mirrors the subgraph amendment member by member', () => {
    const a = {
      addedLines: [{ lineNumber: 2, sku: 'CAP', previousSku: null, quantityBefore: null, quantityAfter: 1 }],
      removedLines: [],
      changedLines: [{ lineNumber: 1, sku: 'MUG', previousSku: null, quantityBefore: 2, quantityAfter: 5 }],
      unchangedLineNumbers: [3],
      replacedFulfilments: [{ supplierLocation: { code: 'leeds', countryCode: 'GB' }, previousUuid: 'a', newUuid: 'b' }],
      countdownRestarted: true,
    };
    expect(toAmendment(a)).toEqual(a);
  });
});
