import type { Fulfilment } from './model';
import { Problem } from '@pf/platform/problems';
import { needsTeamMethods, validateTracking, withShippingMethod, withTrackingAdded, type NewTracking } from './tracking';

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
    expect(withShippingMethod([detail({ methodCode: 'freight', methodName: 'Standard' })], express, team)).toEqual([
      detail({ methodCode: 'freight', methodName: 'Standard' }),
    ]);
    expect(withShippingMethod([detail()], null)).toEqual([detail()]);
  });

  const team = [express, { code: 'tracked-eu', name: 'Tracked EU' }, { code: 'std', name: 'Standard' }, { code: 'std-old', name: 'standard ' }];

  it('a detail naming a method by name gets the code of the team’s method of that name', () => {
    expect(withShippingMethod([detail({ methodName: 'Tracked EU' })], express, team)).toEqual([detail({ methodCode: 'tracked-eu', methodName: 'Tracked EU' })]);
    expect(withShippingMethod([detail({ methodName: ' tracked eu' })], null, team)).toEqual([detail({ methodCode: 'tracked-eu', methodName: ' tracked eu' })]);
    // The fulfilment's own method first; otherwise a name two methods share names neither.
    expect(withShippingMethod([detail({ methodName: 'Standard' })], { code: 'std-old', name: 'standard ' }, team)[0]!.methodCode).toBe('std-old');
    expect(withShippingMethod([detail({ methodName: 'Standard' })], express, team)[0]!.methodCode).toBeNull();
    expect(withShippingMethod([detail({ methodName: 'No such method' })], express, team)[0]!.methodCode).toBeNull();
  });

  it('a detail naming a method by code gets its name when the team has it', () => {
    expect(withShippingMethod([detail({ methodCode: 'tracked-eu' })], express, team)).toEqual([detail({ methodCode: 'tracked-eu', methodName: 'Tracked EU' })]);
    expect(withShippingMethod([detail({ methodCode: 'freight' })], express, team)).toEqual([detail({ methodCode: 'freight' })]);
  });

  it('the team’s methods are needed only when a detail names a method by one of code and name', () => {
    expect(needsTeamMethods([detail(), detail({ methodCode: 'a', methodName: 'A' })])).toBe(false);
    expect(needsTeamMethods([detail(), detail({ methodName: 'A' })])).toBe(true);
    expect(needsTeamMethods([detail({ methodCode: 'a' })])).toBe(true);
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

describe('validateTracking', () => {
  const refused = (details: Parameters<typeof validateTracking>[0]) => {
    try {
      validateTracking(details, 'input.trackingDetails');
    } catch (err) {
      return (err as Problem).violations?.map((v) => v.property);
    }
    return [];
  };

  it('keeps valid details, absent members as null', () => {
    expect(validateTracking([{ carrier: 'DPD', trackingUrl: 'https://track.example/1?x=y' }], 'trackingDetails')).toEqual([
      { carrier: 'DPD', trackingNumber: null, trackingUrl: 'https://track.example/1?x=y', methodCode: null, methodName: null },
    ]);
    expect(refused([{ trackingUrl: 'http://track.example' }])).toEqual([]);
  });

  it('refuses a tracking URL that is not an absolute http or https link', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'ftp://track.example/1', '/track/1', 'track.example/1', 'https://']) {
      expect({ url, refused: refused([{ carrier: 'DPD', trackingUrl: url }]) }).toEqual({ url, refused: ['input.trackingDetails[0].trackingUrl'] });
    }
  });

  it('counts characters, refuses empty members and names the detail without carrier, number or URL', () => {
    expect(refused([{ carrier: '😀'.repeat(255) }])).toEqual([]);
    expect(refused([{ carrier: 'x'.repeat(256) }, { carrier: '', trackingNumber: '1' }, { methodName: 'Express' }])).toEqual([
      'input.trackingDetails[0].carrier',
      'input.trackingDetails[1].carrier',
      'input.trackingDetails[2]',
    ]);
  });
});
