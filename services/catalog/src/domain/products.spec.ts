import { ProductUpdated } from '@pf/platform/events/catalog';
import { Problem } from '@pf/platform/problems';
import type { ProductFields } from './model';
import { productState } from './model';
import {
  ACTIVE_STATES,
  activeStateViolations,
  descriptionViolations,
  dimensionsViolations,
  isActiveState,
  measureViolations,
  nameViolations,
  newProductFields,
  productChanges,
  sameDimensions,
  skuTaken,
  skuViolations,
  toDimensions,
} from './products';

function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (err) {
    if (err instanceof Problem) return err;
    throw err;
  }
  throw new Error('expected a Problem');
}

describe('SKUs', () => {
  it.each(['A', 'PST-A3-MOUNTAIN', 'sku with inner spaces', 'ÄÖÜ-ß-日本', 'x'.repeat(255), '\u{1F4E6}'.repeat(255)])('accepts %j', (sku) => {
    expect(skuViolations(sku, 'input.sku')).toEqual([]);
  });

  it.each([
    ['', /empty/],
    ['x'.repeat(256), /at most 255/],
    ['\u{1F4E6}'.repeat(256), /at most 255/],
    [' PST', /whitespace/],
    ['PST ', /whitespace/],
    ['PST\t', /whitespace/],
    ['PS\u0000T', /control/],
    ['PS\nT', /control/],
    ['PS\ud800T', /surrogate/],
  ])('refuses %j naming the property', (sku, message) => {
    expect(skuViolations(sku, 'input.sku')).toEqual([{ property: 'input.sku', message: expect.stringMatching(message) }]);
  });

  it('names and descriptions must be text the platform can keep (no unpaired surrogate, no NUL)', () => {
    expect(nameViolations('Mug \udc00', 'input.name')).toEqual([{ property: 'input.name', message: expect.stringMatching(/surrogate/) }]);
    expect(descriptionViolations('a\u0000b', 'input.description')).toEqual([{ property: 'input.description', message: expect.stringMatching(/NUL/) }]);
    expect(nameViolations('Mug 😀', 'input.name')).toEqual([]);
  });
});

describe('active states', () => {
  it('are exactly active, inactive and pre-order, lowercase', () => {
    expect(ACTIVE_STATES).toEqual(['active', 'inactive', 'pre-order']);
    for (const s of ACTIVE_STATES) expect(isActiveState(s)).toBe(true);
  });

  it.each(['ACTIVE', 'Active', 'preorder', 'pre_order', 'PRE-ORDER', '', 'deleted'])('refuses %j', (state) => {
    expect(isActiveState(state)).toBe(false);
    expect(activeStateViolations(state, 'input.activeState')).toEqual([{ property: 'input.activeState', message: expect.any(String) }]);
  });
});

describe('dimensions', () => {
  it('accepts every allowed unit of each measure', () => {
    for (const unit of ['g', 'kg', 'oz', 'lb']) expect(measureViolations('weight', { measurement: 1, unit }, 'w')).toEqual([]);
    for (const name of ['length', 'width', 'depth'] as const) {
      for (const unit of ['cm', 'mm', 'm', 'in']) expect(measureViolations(name, { measurement: 1, unit }, name)).toEqual([]);
    }
  });

  it('refuses a length unit for weight and a weight unit for length, naming the unit', () => {
    expect(dimensionsViolations({ weight: { measurement: 1, unit: 'cm' }, depth: { measurement: 2, unit: 'kg' } }, 'input.dimensions')).toEqual([
      { property: 'input.dimensions.weight.unit', message: expect.stringContaining('g, kg, oz, lb') },
      { property: 'input.dimensions.depth.unit', message: expect.stringContaining('cm, mm, m, in') },
    ]);
  });

  it.each(['KG', 'Kg', 'grams', 'inch', 'ft', ''])('refuses unit %j', (unit) => {
    expect(measureViolations('weight', { measurement: 1, unit }, 'p')[0]?.property).toBe('p.unit');
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1_000_000_000, 1.0001])('refuses measurement %p', (measurement) => {
    expect(measureViolations('length', { measurement, unit: 'cm' }, 'p')).toEqual([{ property: 'p.measurement', message: expect.any(String) }]);
  });

  it.each([0.001, 1, 12.5, 1.005, 999_999_999.999])('accepts measurement %p', (measurement) => {
    expect(measureViolations('length', { measurement, unit: 'cm' }, 'p')).toEqual([]);
  });

  it('reports measurement and unit of the same measure together', () => {
    expect(measureViolations('weight', { measurement: 0, unit: 'm' }, 'p').map((v) => v.property)).toEqual(['p.measurement', 'p.unit']);
  });

  it('keeps given measures, nulls the others, and is null when none is given', () => {
    expect(toDimensions({ weight: { measurement: 2, unit: 'kg' } })).toEqual({ weight: { measurement: 2, unit: 'kg' }, length: null, width: null, depth: null });
    expect(toDimensions({})).toBeNull();
    expect(toDimensions({ weight: null, length: null })).toBeNull();
    expect(toDimensions(null)).toBeNull();
  });

  it('compares dimensions measure by measure', () => {
    const a = toDimensions({ weight: { measurement: 2, unit: 'kg' } });
    expect(sameDimensions(a, toDimensions({ weight: { measurement: 2, unit: 'kg' } }))).toBe(true);
    expect(sameDimensions(a, toDimensions({ weight: { measurement: 2000, unit: 'g' } }))).toBe(false);
    expect(sameDimensions(a, null)).toBe(false);
    expect(sameDimensions(null, null)).toBe(true);
  });
});

describe('a new product', () => {
  it('gets the defaults: active, no print-on-demand, no SKU, no dimensions', () => {
    expect(newProductFields({ name: '  Poster ' })).toEqual({
      sku: null,
      name: 'Poster',
      description: null,
      activeState: 'active',
      podEnabled: false,
      podApproved: false,
      dimensions: null,
    });
  });

  it('lists every bad field in one validation problem', () => {
    const problem = problemOf(() =>
      newProductFields({
        sku: ' x',
        name: ' ',
        description: 'd'.repeat(5001),
        activeState: 'ACTIVE',
        dimensions: { weight: { measurement: 1, unit: 'KG' }, length: { measurement: -1, unit: 'cm' } },
      }),
    );
    expect(problem.problemType).toBe('validation-failed');
    expect(problem.violations?.map((v) => v.property)).toEqual([
      'input.sku',
      'input.name',
      'input.description',
      'input.activeState',
      'input.dimensions.weight.unit',
      'input.dimensions.length.measurement',
    ]);
  });
});

describe('changing a product', () => {
  const current: ProductFields = {
    sku: 'A-1',
    name: 'Poster',
    description: 'Matte',
    activeState: 'active',
    podEnabled: false,
    podApproved: false,
    dimensions: toDimensions({ weight: { measurement: 100, unit: 'g' } }),
  };

  it('returns only what differs, so a change to the same values changes nothing', () => {
    expect(productChanges(current, {})).toEqual({});
    expect(
      productChanges(current, {
        sku: 'A-1',
        name: ' Poster ',
        description: 'Matte',
        activeState: 'active',
        podEnabled: false,
        dimensions: { weight: { measurement: 100, unit: 'g' } },
      }),
    ).toEqual({});
  });

  it('clears the nullable fields with null and ignores null for the others', () => {
    expect(productChanges(current, { sku: null, description: null, dimensions: null, name: null, activeState: null, podEnabled: null })).toEqual({
      sku: null,
      description: null,
      dimensions: null,
    });
  });

  it('changes state, flags and dimensions (replaced as a whole)', () => {
    expect(
      productChanges(current, { activeState: 'pre-order', podEnabled: true, podApproved: true, dimensions: { length: { measurement: 3, unit: 'm' } } }),
    ).toEqual({
      activeState: 'pre-order',
      podEnabled: true,
      podApproved: true,
      dimensions: { weight: null, length: { measurement: 3, unit: 'm' }, width: null, depth: null },
    });
  });

  it('validates the fields given, naming them', () => {
    const problem = problemOf(() => productChanges(current, { sku: '', dimensions: { width: { measurement: 1, unit: 'lb' } } }));
    expect(problem.violations?.map((v) => v.property)).toEqual(['input.sku', 'input.dimensions.width.unit']);
  });
});

describe('events and conflicts', () => {
  it('the event payload is the full state and passes the event contract', () => {
    const product = {
      uuid: '8d5b7f52-1c1e-4a43-9d6f-3f1f4b2f7f10',
      teamCode: 'acme',
      ...newProductFields({ sku: 'A-1', name: 'Poster', dimensions: { weight: { measurement: 1.5, unit: 'kg' } } }),
      version: 3,
      createdAt: new Date(),
      updatedAt: new Date(),
      deletedAt: new Date(),
    };
    const event = ProductUpdated.create(product.uuid, productState(product));
    expect(event.payload).toEqual({
      productUuid: product.uuid,
      teamCode: 'acme',
      sku: 'A-1',
      name: 'Poster',
      activeState: 'active',
      podEnabled: false,
      podApproved: false,
      deleted: true,
      version: 3,
      dimensions: { weight: { measurement: 1.5, unit: 'kg' }, length: null, width: null, depth: null },
    });
  });

  it('a taken SKU is a conflict naming the SKU', () => {
    const problem = skuTaken('A-1');
    expect(problem.problemType).toBe('conflict');
    expect(problem.status).toBe(409);
    expect(problem.message).toContain('"A-1"');
    expect(problem.toBody()).toMatchObject({ status: 409, sku: 'A-1' });
  });
});
