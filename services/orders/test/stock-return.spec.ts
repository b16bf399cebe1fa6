import { FULFILMENT_STATUSES, type FulfilmentStatus } from '../src/domain/order-state-machine';
import { locationsGivingBack, returnsConsumedStock } from '../src/use-cases/transitions';

describe('which fulfilment moves give consumed stock back', () => {
  it('sent and not dispatched (processing, back-order, invalid), then cancelled or discarded: yes; nothing else', () => {
    const yes: string[] = [];
    for (const from of FULFILMENT_STATUSES) {
      for (const to of [...FULFILMENT_STATUSES, 'discarded' as const]) if (returnsConsumedStock(from, to)) yes.push(`${from}->${to}`);
    }
    expect(yes.sort()).toEqual([
      'back-order->cancelled',
      'back-order->discarded',
      'invalid->cancelled',
      'invalid->discarded',
      'processing->cancelled',
      'processing->discarded',
    ]);
  });

  it('failed is not returned (what a failure left on the shelf is unknown); a draft\'s holds were never consumed', () => {
    expect(returnsConsumedStock('processing', 'failed')).toBe(false);
    expect(returnsConsumedStock('draft', 'cancelled')).toBe(false);
    expect(returnsConsumedStock('dispatched', 'returned')).toBe(false);
  });

  it('names each supplier location once, in code order', () => {
    const at = (code: string) => ({ supplierLocation: { code, countryCode: 'GB' } });
    const move = (from: FulfilmentStatus, to: FulfilmentStatus | 'discarded', code: string) => ({ from, to, f: at(code) });
    expect(
      locationsGivingBack([
        move('processing', 'cancelled', 'leeds'),
        move('draft', 'cancelled', 'york'),
        move('invalid', 'discarded', 'berlin'),
        move('back-order', 'cancelled', 'leeds'),
        move('dispatched', 'dispatched', 'paris'),
      ]),
    ).toEqual(['berlin', 'leeds']);
    expect(locationsGivingBack([])).toEqual([]);
  });
});
