import type { Fulfilment } from './model';
import { coverage, derivesFromStock, fulfillabilityFromStock, fulfillabilityOnTakingStock, neededPerProduct, needsAffected, STOCK_DERIVED_STATUSES } from './fulfillability';
import { ORDER_STATUSES, type FulfilmentStatus } from './order-state-machine';

const line = (productUuid: string | null, quantity: number) => ({ productUuid, quantity });
const figures = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('fulfillable status from stock', () => {
  it('every product covered: fulfillable (exactly enough counts)', () => {
    expect(fulfillabilityFromStock([line('a', 3), line('b', 5)], figures({ a: 3, b: 100 }))).toBe('fulfillable');
  });

  it('no product covered at all: not-fulfillable', () => {
    expect(fulfillabilityFromStock([line('a', 3), line('b', 5)], figures({ a: 0, b: 0 }))).toBe('not-fulfillable');
  });

  it('some covered, some not: partially-fulfillable', () => {
    expect(fulfillabilityFromStock([line('a', 3), line('b', 5)], figures({ a: 10, b: 0 }))).toBe('partially-fulfillable');
  });

  it('a product with some stock but less than needed: partially-fulfillable, even on its own', () => {
    expect(fulfillabilityFromStock([line('a', 10)], figures({ a: 6 }))).toBe('partially-fulfillable');
    expect(coverage(10, 6)).toBe('partly');
    expect(coverage(10, 0)).toBe('uncovered');
    expect(coverage(10, 10)).toBe('covered');
  });

  it('lines of one product are added up against its figure', () => {
    expect(neededPerProduct([line('a', 5), line('b', 1), line('a', 5)])).toEqual(new Map([['a', 10], ['b', 1]]));
    expect(fulfillabilityFromStock([line('a', 5), line('a', 5)], figures({ a: 9 }))).toBe('partially-fulfillable');
    expect(fulfillabilityFromStock([line('a', 5), line('a', 5)], figures({ a: 10 }))).toBe('fulfillable');
  });

  it('unmatched lines need no stock; a product whose figure is unknown counts as covered', () => {
    expect(fulfillabilityFromStock([line(null, 5), line('a', 1)], figures({ a: 0 }))).toBe('not-fulfillable');
    expect(fulfillabilityFromStock([line(null, 5)], figures({}))).toBe('fulfillable');
    expect(fulfillabilityFromStock([line('unknown', 5)], figures({}))).toBe('fulfillable');
    expect(fulfillabilityFromStock([line('unknown', 5), line('a', 1)], figures({ a: 0 }))).toBe('partially-fulfillable');
    expect(fulfillabilityFromStock([], figures({}))).toBe('fulfillable');
  });
});

describe('which needs a figure change concerns', () => {
  const concerned = (needed: number, range: { above: number; atMost: number | null }) => needed > range.above && (range.atMost === null || needed <= range.atMost);

  it('exactly the needs whose coverage changes, for every pair of figures (unknown included)', () => {
    const figuresBefore = [undefined, 0, 1, 3, 5, 8, 1000];
    const figuresAfter = [0, 1, 3, 5, 8, 1000];
    for (const before of figuresBefore) {
      for (const after of figuresAfter) {
        if (before === after) continue;
        const range = needsAffected(before, after);
        for (let needed = 1; needed <= 1002; needed++) {
          expect([before, after, needed, concerned(needed, range)]).toEqual([before, after, needed, coverage(needed, before) !== coverage(needed, after)]);
        }
      }
    }
  });

  it('a large figure moving a little concerns only the needs in between', () => {
    expect(needsAffected(1_000_000, 999_990)).toEqual({ above: 999_990, atMost: 1_000_000 });
    expect(needsAffected(5, 0)).toEqual({ above: 0, atMost: null });
    expect(needsAffected(undefined, 7)).toEqual({ above: 7, atMost: null });
  });
});

describe('which orders follow stock', () => {
  const fulfilment = (status: FulfilmentStatus) => ({ status }) as Fulfilment;

  it('drafts and orders held back without holds, nothing sent', () => {
    expect(derivesFromStock({ status: 'draft', stockHeld: false, fulfilments: [] })).toBe(true);
    expect(derivesFromStock({ status: 'holding', stockHeld: false, fulfilments: [] })).toBe(true);
  });

  it('not with stock held (reserve, confirmed and not sent)', () => {
    expect(derivesFromStock({ status: 'draft', stockHeld: true, fulfilments: [] })).toBe(false);
    expect(derivesFromStock({ status: 'queued', stockHeld: true, fulfilments: [fulfilment('draft')] })).toBe(false);
  });

  it('not once something was sent (its stock was consumed), nor when finished', () => {
    expect(derivesFromStock({ status: 'holding', stockHeld: false, fulfilments: [fulfilment('processing')] })).toBe(false);
    for (const status of ['processing', 'back-order', 'invalid', 'complete', 'cancelled', 'failed', 'returned', 'partial'] as const) {
      expect(derivesFromStock({ status, stockHeld: false, fulfilments: [] })).toBe(false);
    }
  });

  it('the derived statuses are order statuses, none of them finished or sent', () => {
    expect(STOCK_DERIVED_STATUSES.every((s) => (ORDER_STATUSES as readonly string[]).includes(s))).toBe(true);
    expect(STOCK_DERIVED_STATUSES).not.toContain('processing');
    expect(STOCK_DERIVED_STATUSES).not.toContain('cancelled');
  });
});

describe('taking stock makes an order fulfillable', () => {
  const draft = { stockHeld: false, fulfilments: [] };
  const f = (status: FulfilmentStatus) => ({ status }) as Fulfilment;

  it('held now (reserve, confirmation): fulfillable, whatever it was', () => {
    expect(fulfillabilityOnTakingStock(draft, { status: 'queued', stockHeld: true, fulfilments: [f('draft')], fulfillableStatus: 'not-fulfillable' })).toBe('fulfillable');
    expect(fulfillabilityOnTakingStock(draft, { status: 'draft', stockHeld: true, fulfilments: [], fulfillableStatus: 'partially-fulfillable' })).toBe('fulfillable');
  });

  it('held and sent at once (process now): fulfillable', () => {
    expect(fulfillabilityOnTakingStock(draft, { status: 'processing', stockHeld: false, fulfilments: [f('processing')], fulfillableStatus: 'not-fulfillable' })).toBe('fulfillable');
  });

  it('nothing to change: fulfillable already, stock owned before, none taken, or finished', () => {
    expect(fulfillabilityOnTakingStock(draft, { status: 'queued', stockHeld: true, fulfilments: [f('draft')], fulfillableStatus: 'fulfillable' })).toBeNull();
    expect(fulfillabilityOnTakingStock({ stockHeld: true, fulfilments: [] }, { status: 'queued', stockHeld: true, fulfilments: [f('draft')], fulfillableStatus: 'not-fulfillable' })).toBeNull();
    expect(fulfillabilityOnTakingStock(draft, { status: 'holding', stockHeld: false, fulfilments: [], fulfillableStatus: 'not-fulfillable' })).toBeNull();
    expect(fulfillabilityOnTakingStock(draft, { status: 'cancelled', stockHeld: false, fulfilments: [f('cancelled')], fulfillableStatus: 'not-fulfillable' })).toBeNull();
  });
});
