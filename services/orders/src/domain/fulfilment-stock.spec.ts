import { settlementOf, stockStepOf, stockStepsOf, type FulfilmentMove } from './fulfilment-stock';
import { FINISHED_ORDER_STATUSES, FULFILMENT_STATUSES, FULFILMENT_TRANSITIONS, ORDER_STATUSES, type FulfilmentStatus } from './order-state-machine';

const at = (code: string) => ({ supplierLocation: { code, countryCode: 'GB' } });

describe('what a fulfilment move does to its location\'s stock', () => {
  it('every move of the fulfilment table, and discarding: consume, release, return or nothing', () => {
    const steps: Record<string, string[]> = { consume: [], release: [], return: [] };
    for (const from of FULFILMENT_STATUSES) {
      for (const to of [...FULFILMENT_TRANSITIONS[from], 'discarded' as const]) {
        const step = stockStepOf(from, to);
        if (step) steps[step]!.push(`${from}->${to}`);
      }
    }
    expect(steps).toEqual({
      // A draft its supplier takes: the stock leaves with it, as when the order sends it.
      consume: ['draft->processing'],
      // A draft that ends unsent: what it held can be sold again.
      release: ['draft->cancelled', 'draft->discarded'],
      // Sent, never dispatched, then cancelled or dropped: the goods are still on the shelf.
      return: ['processing->cancelled', 'processing->discarded', 'back-order->cancelled', 'back-order->discarded', 'invalid->cancelled', 'invalid->discarded'],
    });
  });

  it('a draft that fails is released too (nothing was sent); a sent one that fails is not returned; staying put does nothing', () => {
    expect(stockStepOf('draft', 'failed')).toBe('release');
    expect(stockStepOf('processing', 'failed')).toBeNull();
    expect(stockStepOf('dispatched', 'returned')).toBeNull();
    for (const s of FULFILMENT_STATUSES) expect(stockStepOf(s, s)).toBeNull();
  });

  it('names each location once per step, in code order', () => {
    const move = (from: FulfilmentStatus, to: FulfilmentStatus | 'discarded', code: string): FulfilmentMove => ({ from, to, f: at(code) });
    expect(
      stockStepsOf([
        move('draft', 'cancelled', 'york'),
        move('draft', 'cancelled', 'berlin'),
        move('draft', 'processing', 'paris'),
        move('processing', 'cancelled', 'leeds'),
        move('invalid', 'discarded', 'berlin'),
        move('processing', 'dispatched', 'oslo'),
        move('draft', 'failed', 'berlin'),
      ]),
    ).toEqual({ consume: ['paris'], release: ['berlin', 'york'], return: ['berlin', 'leeds'] });
    expect(stockStepsOf([])).toEqual({ consume: [], release: [], return: [] });
  });
});

describe('settling an order\'s holds as a whole: no draft left, or the order ended', () => {
  const f = (status: FulfilmentStatus, code: string) => ({ status, ...at(code) });

  it('not while a draft still counts on its holds, nor for an order without fulfilments (a reserved draft), unless it ended', () => {
    expect(settlementOf({ status: 'holding', stockHeld: true, fulfilments: [f('draft', 'leeds'), f('cancelled', 'berlin')] })).toBeNull();
    expect(settlementOf({ status: 'error', stockHeld: true, fulfilments: [f('draft', 'leeds'), f('processing', 'berlin')] })).toBeNull();
    expect(settlementOf({ status: 'draft', stockHeld: true, fulfilments: [] })).toBeNull();
    for (const status of ORDER_STATUSES) {
      const ended = FINISHED_ORDER_STATUSES.includes(status);
      expect(settlementOf({ status, stockHeld: true, fulfilments: [] })).toEqual(ended ? { consume: [] } : null);
      expect(settlementOf({ status, stockHeld: true, fulfilments: [f('draft', 'leeds')] })).toEqual(ended ? { consume: [] } : null);
    }
  });

  it('nothing to settle when the order holds no stock', () => {
    for (const status of ORDER_STATUSES) expect(settlementOf({ status, stockHeld: false, fulfilments: [f('cancelled', 'leeds')] })).toBeNull();
  });

  it('the last draft gone: everything released (the usual case: both cancelled, the order failed)', () => {
    expect(settlementOf({ status: 'holding', stockHeld: true, fulfilments: [f('cancelled', 'leeds'), f('cancelled', 'berlin')] })).toEqual({ consume: [] });
    expect(settlementOf({ status: 'failed', stockHeld: true, fulfilments: [f('cancelled', 'leeds'), f('cancelled', 'berlin')] })).toEqual({ consume: [] });
  });

  it('consumed at the locations of fulfilments that were sent and not cancelled (their goods went); the rest released', () => {
    expect(
      settlementOf({
        status: 'partial',
        stockHeld: true,
        fulfilments: [f('dispatched', 'leeds'), f('cancelled', 'berlin'), f('failed', 'york'), f('returned', 'athens')],
      }),
    ).toEqual({ consume: ['athens', 'leeds', 'york'] });
    // A supplier took the last draft of a holding order: no draft left, that one is consumed.
    expect(settlementOf({ status: 'holding', stockHeld: true, fulfilments: [f('processing', 'leeds'), f('cancelled', 'berlin')] })).toEqual({ consume: ['leeds'] });
    expect(settlementOf({ status: 'error', stockHeld: true, fulfilments: [f('back-order', 'leeds'), f('invalid', 'berlin')] })).toEqual({ consume: ['berlin', 'leeds'] });
  });
});
