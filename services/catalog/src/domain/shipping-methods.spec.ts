import { ShippingMethodChanged } from '@pf/platform/events/catalog';
import { Problem } from '@pf/platform/problems';
import { shippingMethodKey, shippingMethodState, type ShippingMethod } from './model';
import {
  byPreference,
  countryCodesViolations,
  countryFilterViolations,
  deliveryDaysViolations,
  newShippingMethodFields,
  normaliseCountryCodes,
  servesCountry,
  shippingMethodChanges,
  shippingMethodCodeViolations,
} from './shipping-methods';

function violationsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof Problem) return err.violations?.map((v) => v.property) ?? [];
    throw err;
  }
  return [];
}

describe('shipping method codes', () => {
  it.each(['standard', 'express', 'tracked-eu', 'economy_intl', 'x', 'a1', 'a'.repeat(64)])('accepts %s', (code) => {
    expect(shippingMethodCodeViolations(code, 'input.code')).toEqual([]);
  });
  it.each(['', 'Standard', '-eu', 'eu-', 'tracked eu', 'a'.repeat(65), 'état'])('refuses %j', (code) => {
    expect(shippingMethodCodeViolations(code, 'input.code')).toHaveLength(1);
  });
});

describe('a new shipping method', () => {
  it('gets the defaults: active, every country, standard, untracked, no estimate, priority 100', () => {
    expect(newShippingMethodFields({ code: 'standard', name: ' Standard ', carrier: ' Royal Mail ' })).toEqual({
      code: 'standard',
      fields: {
        name: 'Standard',
        carrier: 'Royal Mail',
        active: true,
        countryCodes: [],
        serviceLevel: 'standard',
        tracked: false,
        minDeliveryDays: null,
        maxDeliveryDays: null,
        priority: 100,
      },
    });
  });

  it('keeps country codes upper case, unique and sorted', () => {
    expect(normaliseCountryCodes(['fr', 'DE', 'Fr', 'at'])).toEqual(['AT', 'DE', 'FR']);
  });

  it('a destination country is an assigned code or Kosovo\'s XK, in ASCII letters of either case', () => {
    expect(countryCodesViolations(['GB', 'xk', 'XK', 'nl'], 'countryCodes')).toEqual([]);
    expect(countryCodesViolations(['\uFB01', 'UK'], 'countryCodes').map((v) => v.property)).toEqual(['countryCodes[0]', 'countryCodes[1]']);
    expect(countryFilterViolations('XK', 'countryCode')).toEqual([]);
    expect(countryFilterViolations('\uFB06', 'countryCode').map((v) => v.property)).toEqual(['countryCode']);
  });

  it('names every bad field', () => {
    expect(
      violationsOf(() =>
        newShippingMethodFields({
          code: 'Bad Code',
          name: '',
          carrier: ' ',
          countryCodes: ['GB', 'GBR', '1A', 'ZZ', 'uk', 'de'],
          serviceLevel: 'overnight',
          minDeliveryDays: 5,
          maxDeliveryDays: 2,
          priority: -1,
        }),
      ),
    ).toEqual([
      'input.code',
      'input.name',
      'input.carrier',
      'input.countryCodes[1]',
      'input.countryCodes[2]',
      // two letters, but no assigned country (UK is reserved, not GB's code)
      'input.countryCodes[3]',
      'input.countryCodes[4]',
      'input.serviceLevel',
      'input.maxDeliveryDays',
      'input.priority',
    ]);
  });
});

describe('delivery estimates', () => {
  it('are both or neither, within 0..365, min at most max', () => {
    expect(deliveryDaysViolations(null, null, 'input')).toEqual([]);
    expect(deliveryDaysViolations(0, 0, 'input')).toEqual([]);
    expect(deliveryDaysViolations(2, 4, 'input')).toEqual([]);
    expect(deliveryDaysViolations(2, null, 'input').map((v) => v.property)).toEqual(['input.maxDeliveryDays']);
    expect(deliveryDaysViolations(null, 2, 'input').map((v) => v.property)).toEqual(['input.minDeliveryDays']);
    expect(deliveryDaysViolations(-1, 400, 'input').map((v) => v.property)).toEqual(['input.minDeliveryDays', 'input.maxDeliveryDays']);
    expect(deliveryDaysViolations(5, 4, 'input').map((v) => v.property)).toEqual(['input.maxDeliveryDays']);
  });
});

describe('changing a shipping method', () => {
  const current = newShippingMethodFields({ code: 'eu', name: 'EU', carrier: 'DHL', countryCodes: ['DE', 'FR'], minDeliveryDays: 2, maxDeliveryDays: 5 }).fields;

  it('returns only what differs', () => {
    expect(shippingMethodChanges(current, { name: 'EU', carrier: 'DHL', countryCodes: ['fr', 'de'], maxDeliveryDays: 5 })).toEqual({});
    expect(shippingMethodChanges(current, { active: false, countryCodes: ['NL'] })).toEqual({ active: false, countryCodes: ['NL'] });
  });

  it('checks the delivery days as they will be after the change', () => {
    expect(violationsOf(() => shippingMethodChanges(current, { minDeliveryDays: 6 }))).toEqual(['input.maxDeliveryDays']);
    expect(shippingMethodChanges(current, { minDeliveryDays: null, maxDeliveryDays: null })).toEqual({ minDeliveryDays: null, maxDeliveryDays: null });
  });

  it('null countryCodes means every country', () => {
    expect(shippingMethodChanges(current, { countryCodes: null })).toEqual({ countryCodes: [] });
  });
});

describe('choosing a method', () => {
  it('an empty country list serves every country; otherwise only those listed, in any case', () => {
    expect(servesCountry({ countryCodes: [] }, 'JP')).toBe(true);
    expect(servesCountry({ countryCodes: ['DE', 'FR'] }, 'fr')).toBe(true);
    expect(servesCountry({ countryCodes: ['DE', 'FR'] }, 'GB')).toBe(false);
  });

  it('prefers the lowest priority, then the code', () => {
    const methods = [
      { code: 'b', priority: 20 },
      { code: 'z', priority: 10 },
      { code: 'a', priority: 20 },
    ];
    expect(methods.sort(byPreference).map((m) => m.code)).toEqual(['z', 'a', 'b']);
  });
});

it('the event payload is the full state, keyed <team>:<code>, and passes the event contract', () => {
  const { code, fields } = newShippingMethodFields({ code: 'express', name: 'Express', carrier: 'DPD', countryCodes: ['GB'], minDeliveryDays: 1, maxDeliveryDays: 1 });
  const method: ShippingMethod = {
    teamCode: 'acme',
    code,
    ...fields,
    version: 2,
    createdAt: new Date(),
    updatedAt: new Date(),
    deletedAt: null,
  };
  expect(shippingMethodKey(method)).toBe('acme:express');
  const event = ShippingMethodChanged.create(shippingMethodKey(method), shippingMethodState(method));
  expect(event.payload).toEqual({
    teamCode: 'acme',
    code: 'express',
    name: 'Express',
    carrier: 'DPD',
    active: true,
    deleted: false,
    version: 2,
    countryCodes: ['GB'],
    serviceLevel: 'standard',
    tracked: false,
    minDeliveryDays: 1,
    maxDeliveryDays: 1,
    priority: 100,
  });
});
