import { buildFulfilments, replacedFulfilments } from './fulfilments';
import { matchSkus } from './sku-matching';
import { chooseShippingMethod } from './shipping-methods';

const loc = (code: string, countryCode = 'GB') => ({ code, countryCode });

describe('fulfilments from held stock', () => {
  const lines = [
    { lineNumber: 1, sku: 'A', quantity: 3, productUuid: 'a' },
    { lineNumber: 2, sku: 'B', quantity: 5, productUuid: 'b' },
    { lineNumber: 3, sku: 'C', quantity: 1, productUuid: 'c' },
  ];
  const held = [
    { lineNumber: 2, quantity: 5, allocations: [{ location: loc('leeds'), quantity: 2 }, { location: loc('berlin', 'DE'), quantity: 3 }] },
    { lineNumber: 1, quantity: 3, allocations: [{ location: loc('leeds'), quantity: 3 }] },
    { lineNumber: 3, quantity: 1, allocations: [{ location: loc('print-on-demand'), quantity: 1 }] },
  ];

  it('one fulfilment per supplier location (by code); a split line appears in each with its share', () => {
    let n = 0;
    const built = buildFulfilments(lines, held, { newUuid: () => `f${++n}`, method: { code: 'std', name: 'Standard' } });
    expect(built).toEqual([
      { uuid: 'f1', supplierLocation: loc('berlin', 'DE'), shippingMethod: { code: 'std', name: 'Standard' }, lines: [{ lineNumber: 2, sku: 'B', quantity: 3 }] },
      { uuid: 'f2', supplierLocation: loc('leeds'), shippingMethod: { code: 'std', name: 'Standard' }, lines: [{ lineNumber: 1, sku: 'A', quantity: 3 }, { lineNumber: 2, sku: 'B', quantity: 2 }] },
      { uuid: 'f3', supplierLocation: loc('print-on-demand'), shippingMethod: { code: 'std', name: 'Standard' }, lines: [{ lineNumber: 3, sku: 'C', quantity: 1 }] },
    ]);
  });

  it('keeps the shipping method of the previous fulfilment of the same location and pairs replacements by location', () => {
    const previous = [
      { uuid: 'old-leeds', status: 'draft' as const, supplierLocation: loc('leeds'), shippingMethod: { code: 'exp', name: 'Express' }, lines: [], trackingDetails: [], createdAt: new Date(), updatedAt: new Date() },
      { uuid: 'old-york', status: 'draft' as const, supplierLocation: loc('york'), shippingMethod: { code: 'exp', name: 'Express' }, lines: [], trackingDetails: [], createdAt: new Date(), updatedAt: new Date() },
    ];
    let n = 0;
    const built = buildFulfilments(lines, held, { newUuid: () => `n${++n}`, method: { code: 'std', name: 'Standard' }, previous });
    expect(built.map((f) => [f.supplierLocation.code, f.shippingMethod?.code])).toEqual([
      ['berlin', 'std'],
      ['leeds', 'exp'],
      ['print-on-demand', 'std'],
    ]);
    expect(replacedFulfilments(previous, built)).toEqual([
      { supplierLocation: loc('leeds'), previousUuid: 'old-leeds', newUuid: 'n2' },
      { supplierLocation: loc('york'), previousUuid: 'old-york', newUuid: null },
      { supplierLocation: loc('berlin', 'DE'), previousUuid: null, newUuid: 'n1' },
      { supplierLocation: loc('print-on-demand'), previousUuid: null, newUuid: 'n3' },
    ]);
  });
});

describe('rule O3: SKU matching', () => {
  const products = new Map([
    ['A', 'uuid-a'],
    ['B', 'uuid-b'],
  ]);
  const requested = [
    { index: 0, lineNumber: 1, sku: 'A', quantity: 1 },
    { index: 1, lineNumber: 2, sku: 'a', quantity: 1 },
    { index: 2, lineNumber: 3, sku: 'B', quantity: 2 },
  ];
  it('without strictSkus an unmatched line is dropped (matching is exact)', () => {
    const r = matchSkus(requested, products, false);
    expect(r.ok && r.lines.map((l) => [l.lineNumber, l.productUuid])).toEqual([
      [1, 'uuid-a'],
      [3, 'uuid-b'],
    ]);
  });
  it('with strictSkus any unmatched line refuses the order, naming orderLines[i].product.sku', () => {
    const r = matchSkus(requested, products, true);
    expect(r.ok ? [] : r.violations.map((v) => v.property)).toEqual(['orderLines[1].product.sku']);
  });
  it('the matched lines come in line-number order, as an order is read back, whatever order they were sent in', () => {
    const r = matchSkus([...requested].reverse(), products, false);
    expect(r.ok && r.lines.map((l) => l.lineNumber)).toEqual([1, 3]);
  });
});

describe('shipping method at confirmation', () => {
  const m = (code: string, extra: Partial<{ active: boolean; deleted: boolean; countryCodes: string[]; priority: number }> = {}) => ({
    teamCode: 't',
    code,
    name: code.toUpperCase(),
    active: true,
    deleted: false,
    countryCodes: [],
    priority: 100,
    ...extra,
  });
  const methods = [m('std', { priority: 50 }), m('exp', { countryCodes: ['GB'] }), m('old', { active: false }), m('gone', { deleted: true }), m('cheap', { priority: 10, countryCodes: ['DE'] })];
  it('a named method must be the team\'s, active and serving the destination', () => {
    expect(chooseShippingMethod(methods, 'exp', 'GB')).toEqual({ ok: true, method: { code: 'exp', name: 'EXP' } });
    for (const [code, country] of [['exp', 'FR'], ['old', 'GB'], ['gone', 'GB'], ['nope', 'GB']] as const) {
      const r = chooseShippingMethod(methods, code, country);
      expect(r.ok ? [] : r.violations.map((v) => v.property)).toEqual(['shippingMethodCode']);
    }
  });
  it('none named: the preferred method serving the destination', () => {
    expect(chooseShippingMethod(methods, null, 'DE')).toEqual({ ok: true, method: { code: 'cheap', name: 'CHEAP' } });
    expect(chooseShippingMethod(methods, null, 'GB')).toEqual({ ok: true, method: { code: 'std', name: 'STD' } });
    expect(chooseShippingMethod([], null, 'GB').ok).toBe(false);
  });
});
