import type { Fulfilment } from './model';
import { withShippingMethod, withTrackingAdded, type NewTracking } from './tracking';

const detail = (extra: Partial<NewTracking> = {}): NewTracking => ({
  carrier: 'DPD',
  trackingNumber: '15501234',
  trackingUrl: 'https://track.example.com/15501234',
  methodCode: null,
  methodName: null,
  ...extra,
});

describe('tracking details', () => {
  const express = { code: 'express', name: 'Express 24' };

  it('a detail naming no shipping method takes the fulfilment’s own', () => {
    expect(withShippingMethod([detail()], express)).toEqual([detail({ methodCode: 'express', methodName: 'Express 24' })]);
  });

  it('a detail naming one keeps it; without a chosen method nothing is made up', () => {
    expect(withShippingMethod([detail({ methodCode: 'freight' })], express)).toEqual([detail({ methodCode: 'freight' })]);
    expect(withShippingMethod([detail({ methodName: 'Pallet' })], express)).toEqual([detail({ methodName: 'Pallet' })]);
    expect(withShippingMethod([detail()], null)).toEqual([detail()]);
  });

  it('added details follow the ones the fulfilment has, stamped with it and the time', () => {
    const now = new Date('2026-11-26T10:00:00Z');
    const earlier = { ...detail({ trackingNumber: 'A' }), fulfilmentUuid: 'f-1', createdAt: new Date(0) };
    const fulfilment = { uuid: 'f-1', trackingDetails: [earlier] } as unknown as Fulfilment;
    expect(withTrackingAdded(fulfilment, [detail({ trackingNumber: 'B' })], now).trackingDetails).toEqual([
      earlier,
      { ...detail({ trackingNumber: 'B' }), fulfilmentUuid: 'f-1', createdAt: now },
    ]);
  });
});
