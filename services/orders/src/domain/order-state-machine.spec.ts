import {
  acceptsSupplierProgress,
  decide,
  deriveFromFulfilments,
  finalStatusOf,
  FULFILMENT_STATUSES,
  FULFILMENT_TRANSITIONS,
  isConfirmed,
  mayMoveFulfilment,
  ORDER_STATUSES,
  TRANSITIONS,
  type FulfilmentStatus,
  type OrderState,
  type OrderStatus,
  type OrderTrigger,
} from './order-state-machine';

const now = new Date('2026-11-02T10:00:00.000Z');
const earlier = new Date('2026-11-01T08:00:00.000Z');
const future = new Date('2026-11-05T09:00:00.000Z');
const past = new Date('2026-10-30T09:00:00.000Z');

const order = (status: OrderStatus, confirmedAt: Date | null = null, fulfilmentStatuses: FulfilmentStatus[] = []): OrderState => ({
  status,
  confirmedAt,
  fulfilmentStatuses,
});

describe('order state machine: the rows of section 3', () => {
  it('row 1: a draft replayed with the same orderNumber stays a draft (replaced), confirmedAt stays null', () => {
    expect(decide(order('draft'), 'replace', { now })).toEqual({
      kind: 'move',
      row: 1,
      to: 'draft',
      confirmedAt: null,
      fulfilments: 'keep',
      holds: 'as-requested',
      timer: 'keep',
    });
  });

  it('row 2: an order held before confirmation (holding, confirmedAt null) replayed becomes a draft again', () => {
    expect(decide(order('holding', null), 'replace', { now })).toMatchObject({ kind: 'move', row: 2, to: 'draft', confirmedAt: null, holds: 'as-requested' });
  });

  it('row 2 does not apply to a holding order that was confirmed', () => {
    expect(decide(order('holding', earlier), 'replace', { now })).toEqual({ kind: 'refused', detail: 'The order was confirmed.' });
  });

  it('row 3: confirming a draft queues it (countdown), sets confirmedAt, builds fulfilments', () => {
    expect(decide(order('draft'), 'confirm', { now, scheduledAt: null })).toEqual({
      kind: 'move',
      row: 3,
      to: 'queued',
      confirmedAt: now,
      fulfilments: 'ensure',
      holds: 'keep',
      timer: 'countdown',
    });
  });

  it('row 3: confirming a draft whose scheduledAt is ahead schedules it; one in the past queues it', () => {
    expect(decide(order('draft'), 'confirm', { now, scheduledAt: future })).toMatchObject({ kind: 'move', to: 'scheduled', confirmedAt: now, timer: 'schedule' });
    expect(decide(order('draft'), 'confirm', { now, scheduledAt: past })).toMatchObject({ kind: 'move', to: 'queued', timer: 'countdown' });
  });

  it('confirming a confirmed order changes nothing, whatever its status (cancelled since included: it keeps confirmedAt)', () => {
    for (const status of ORDER_STATUSES) {
      expect(decide(order(status, earlier), 'confirm', { now })).toEqual({ kind: 'unchanged' });
    }
    // Confirmed before confirmedAt existed (not backfilled yet): the status says so.
    for (const status of ['queued', 'scheduled', 'processing', 'back-order', 'error', 'complete', 'partial', 'failed', 'returned', 'invalid'] as const) {
      expect(decide(order(status, null), 'confirm', { now })).toEqual({ kind: 'unchanged' });
    }
  });

  it('confirming an unconfirmed holding or cancelled order is refused (send it again first)', () => {
    expect(decide(order('holding', null), 'confirm', { now }).kind).toBe('refused');
    expect(decide(order('cancelled', null), 'confirm', { now }).kind).toBe('refused');
  });

  it('row 4: draft, queued or scheduled with every fulfilment a draft may be amended; a queued order gets a fresh countdown', () => {
    expect(decide(order('draft'), 'amend', { now })).toMatchObject({ kind: 'move', row: 4, to: 'draft', confirmedAt: null, fulfilments: 'rebuild', holds: 'rehold', timer: 'keep' });
    expect(decide(order('queued', earlier, ['draft', 'draft']), 'amend', { now })).toMatchObject({ kind: 'move', row: 4, to: 'queued', confirmedAt: earlier, timer: 'countdown' });
    expect(decide(order('scheduled', earlier, ['draft']), 'amend', { now })).toMatchObject({ kind: 'move', row: 4, to: 'scheduled', confirmedAt: earlier, timer: 'keep' });
  });

  it('row 4 refuses once a fulfilment reached a supplier, and in any other status', () => {
    expect(decide(order('queued', earlier, ['draft', 'processing']), 'amend', { now })).toEqual({
      kind: 'refused',
      detail: 'A fulfilment of the order has already reached a supplier.',
    });
    for (const status of ORDER_STATUSES.filter((s) => !['draft', 'queued', 'scheduled'].includes(s))) {
      expect(decide(order(status, earlier), 'amend', { now }).kind).toBe('refused');
    }
  });

  it('row 5: cancelling any unfinished order with nothing dispatched: cancelled, confirmedAt stays, holds released', () => {
    for (const status of ['draft', 'queued', 'scheduled', 'processing', 'holding', 'back-order', 'error', 'invalid'] as const) {
      const confirmedAt = status === 'draft' ? null : earlier;
      expect(decide(order(status, confirmedAt, status === 'draft' ? [] : ['processing', 'failed']), 'cancel', { now })).toEqual({
        kind: 'move',
        row: 5,
        to: 'cancelled',
        confirmedAt,
        fulfilments: 'cancel-open',
        holds: 'release',
        timer: 'clear',
      });
    }
  });

  it('row 5 refuses (428) once something was dispatched, and for finished orders', () => {
    expect(decide(order('processing', earlier, ['dispatched', 'processing']), 'cancel', { now })).toEqual({
      kind: 'refused',
      detail: 'A fulfilment of the order has already been dispatched.',
    });
    for (const status of ['complete', 'cancelled', 'failed', 'returned', 'partial'] as const) {
      expect(decide(order(status, earlier), 'cancel', { now }).kind).toBe('refused');
    }
  });

  it('row 6: a confirmed order taken out of the queue / saved as draft: draft, confirmedAt cleared', () => {
    for (const status of ['queued', 'scheduled', 'holding', 'error'] as const) {
      expect(decide(order(status, earlier, ['draft']), 'save-as-draft', { now })).toEqual({
        kind: 'move',
        row: 6,
        to: 'draft',
        confirmedAt: null,
        fulfilments: 'discard',
        holds: 'release',
        timer: 'clear',
      });
    }
    expect(decide(order('processing', earlier, ['processing']), 'save-as-draft', { now }).kind).toBe('refused');
    expect(decide(order('holding', earlier, ['processing']), 'save-as-draft', { now }).kind).toBe('refused');
  });

  it('row 7: a rejected shipping address: holding with confirmedAt null, from any unfinished status', () => {
    for (const status of ['draft', 'queued', 'scheduled', 'processing', 'holding', 'back-order', 'error', 'invalid'] as const) {
      expect(decide(order(status, earlier, []), 'reject-shipping-address', { now })).toMatchObject({
        kind: 'move',
        row: 7,
        to: 'holding',
        confirmedAt: null,
        fulfilments: 'discard',
        holds: 'release',
      });
    }
    expect(decide(order('processing', earlier, ['dispatched']), 'reject-shipping-address', { now }).kind).toBe('refused');
    expect(decide(order('complete', earlier, ['dispatched']), 'reject-shipping-address', { now }).kind).toBe('refused');
  });

  it('row 8: a confirmed order that could not be sent: holding with confirmedAt kept', () => {
    for (const status of ['queued', 'scheduled', 'processing', 'back-order', 'error'] as const) {
      expect(decide(order(status, earlier, ['draft']), 'not-sent', { now })).toEqual({
        kind: 'move',
        row: 8,
        to: 'holding',
        confirmedAt: earlier,
        fulfilments: 'keep',
        holds: 'keep',
        timer: 'clear',
      });
    }
    expect(decide(order('draft'), 'not-sent', { now }).kind).toBe('refused');
    // Not once a parcel was dispatched: it was sent.
    expect(decide(order('processing', earlier, ['dispatched', 'draft']), 'not-sent', { now })).toMatchObject({
      kind: 'refused',
      detail: 'A fulfilment of the order has already been dispatched.',
    });
  });
});

describe('order state machine: merchant actions and timers (our rows)', () => {
  it('row 9: queue confirms a draft (confirmedAt set) and keeps an existing confirmedAt', () => {
    expect(decide(order('draft'), 'queue', { now })).toMatchObject({ kind: 'move', row: 9, to: 'queued', confirmedAt: now, fulfilments: 'ensure', timer: 'countdown' });
    expect(decide(order('scheduled', earlier, ['draft']), 'queue', { now })).toMatchObject({ kind: 'move', to: 'queued', confirmedAt: earlier });
    expect(decide(order('holding', null), 'queue', { now })).toMatchObject({ kind: 'move', to: 'queued', confirmedAt: now });
  });

  it('row 9: queueing a queued order restarts its countdown, until something reached a supplier', () => {
    expect(decide(order('queued', earlier, ['draft']), 'queue', { now })).toMatchObject({ kind: 'move', row: 9, to: 'queued', confirmedAt: earlier, timer: 'countdown' });
    expect(decide(order('queued', earlier, ['processing']), 'queue', { now })).toEqual({ kind: 'refused', detail: 'A fulfilment of the order has already reached a supplier.' });
  });

  it('row 10: schedule needs a time in the future', () => {
    expect(decide(order('draft'), 'schedule', { now, scheduledAt: future })).toMatchObject({ kind: 'move', row: 10, to: 'scheduled', confirmedAt: now, timer: 'schedule' });
    expect(decide(order('queued', earlier, ['draft']), 'schedule', { now, scheduledAt: future })).toMatchObject({ kind: 'move', to: 'scheduled', confirmedAt: earlier });
    expect(decide(order('draft'), 'schedule', { now, scheduledAt: past })).toEqual({ kind: 'refused', detail: 'The scheduled time must be in the future.' });
  });

  it('row 11: process now sends the fulfilments at once', () => {
    expect(decide(order('draft'), 'process-now', { now })).toMatchObject({ kind: 'move', row: 11, to: 'processing', confirmedAt: now, fulfilments: 'send', timer: 'clear' });
    expect(decide(order('queued', earlier, ['draft']), 'process-now', { now })).toMatchObject({ kind: 'move', to: 'processing', confirmedAt: earlier });
    expect(decide(order('processing', earlier, ['processing']), 'process-now', { now }).kind).toBe('refused');
  });

  it('rows 12-14: timers move queued and scheduled orders to processing, or to error when sending failed', () => {
    expect(decide(order('queued', earlier, ['draft']), 'countdown-ended', { now })).toMatchObject({ kind: 'move', row: 12, to: 'processing', confirmedAt: earlier, fulfilments: 'send' });
    expect(decide(order('scheduled', earlier, ['draft']), 'schedule-due', { now })).toMatchObject({ kind: 'move', row: 13, to: 'processing', confirmedAt: earlier, fulfilments: 'send' });
    expect(decide(order('queued', earlier, ['draft']), 'processing-failed', { now })).toMatchObject({ kind: 'move', row: 14, to: 'holding', confirmedAt: earlier });
    // A countdown that fires after the order moved on does nothing.
    expect(decide(order('draft'), 'countdown-ended', { now }).kind).toBe('refused');
    expect(decide(order('cancelled', earlier), 'schedule-due', { now }).kind).toBe('refused');
  });

  it('rows 15 and 16: an order whose stock the repair cannot give back: confirmed, to holding without fulfilments (confirmedAt kept); a draft, without its reservation', () => {
    for (const status of ['queued', 'scheduled', 'holding', 'error'] as const) {
      expect(decide(order(status, earlier, ['draft', 'draft']), 'stock-lost', { now })).toMatchObject({
        kind: 'move',
        row: 15,
        to: 'holding',
        confirmedAt: earlier,
        fulfilments: 'discard',
        holds: 'release',
        timer: 'clear',
      });
    }
    expect(decide(order('draft'), 'stock-lost', { now })).toMatchObject({ kind: 'move', row: 16, to: 'draft', confirmedAt: null, fulfilments: 'keep', holds: 'release', timer: 'keep' });
    // Something was sent meanwhile: it is not moved (its sent parcels took their stock).
    expect(decide(order('queued', earlier, ['draft', 'processing']), 'stock-lost', { now }).kind).toBe('refused');
    expect(decide(order('processing', earlier, ['processing']), 'stock-lost', { now }).kind).toBe('refused');
    expect(decide(order('cancelled', earlier), 'stock-lost', { now }).kind).toBe('refused');
  });

  it('every (status, trigger) pair outside the table is refused', () => {
    const triggers = [...new Set(TRANSITIONS.map((t) => t.trigger))] as OrderTrigger[];
    for (const trigger of triggers) {
      for (const status of ORDER_STATUSES) {
        const listed = TRANSITIONS.some((t) => t.trigger === trigger && t.from.includes(status));
        const decision = decide(order(status, null), trigger, { now, scheduledAt: future });
        if (!listed && !(trigger === 'confirm' && isConfirmed(order(status, null)))) expect(decision.kind).toBe('refused');
      }
    }
  });

  it('confirmedAt: set only by confirming, queueing, scheduling or processing; cleared only by draft and address rejection', () => {
    const setters = TRANSITIONS.filter((t) => t.confirmedAt === 'set' || t.confirmedAt === 'set-if-null').map((t) => t.trigger);
    expect(new Set(setters)).toEqual(new Set(['confirm', 'queue', 'schedule', 'process-now']));
    const clearers = TRANSITIONS.filter((t) => t.confirmedAt === 'clear').map((t) => t.trigger);
    expect(new Set(clearers)).toEqual(new Set(['save-as-draft', 'reject-shipping-address']));
  });
});

describe('final statuses from fulfilments', () => {
  it('complete: every fulfilment dispatched', () => {
    expect(finalStatusOf(['dispatched'])).toBe('complete');
    expect(finalStatusOf(['dispatched', 'dispatched'])).toBe('complete');
  });
  it('failed: every fulfilment failed, cancelled or returned; nothing shipped', () => {
    expect(finalStatusOf(['failed'])).toBe('failed');
    expect(finalStatusOf(['failed', 'cancelled', 'returned'])).toBe('failed');
    expect(finalStatusOf(['returned'])).toBe('failed');
  });
  it('partial: every fulfilment finished, at least one dispatched and at least one not', () => {
    expect(finalStatusOf(['dispatched', 'failed'])).toBe('partial');
    expect(finalStatusOf(['dispatched', 'cancelled', 'returned'])).toBe('partial');
  });
  it('not final while any fulfilment is unfinished, or when there are none', () => {
    for (const open of ['draft', 'processing', 'back-order', 'invalid'] as const) expect(finalStatusOf(['dispatched', open])).toBeNull();
    expect(finalStatusOf([])).toBeNull();
  });

  it('the order follows its fulfilments while processing', () => {
    expect(deriveFromFulfilments('processing', ['processing', 'back-order'])).toBe('back-order');
    expect(deriveFromFulfilments('back-order', ['processing', 'processing'])).toBe('processing');
    expect(deriveFromFulfilments('processing', ['invalid', 'back-order'])).toBe('invalid');
    expect(deriveFromFulfilments('processing', ['dispatched', 'dispatched'])).toBe('complete');
    expect(deriveFromFulfilments('back-order', ['dispatched', 'failed'])).toBe('partial');
    expect(deriveFromFulfilments('invalid', ['cancelled', 'failed'])).toBe('failed');
  });

  it('holding and error only finish; a parcel that comes back counts as not shipped (section 3: complete, partial, failed)', () => {
    expect(deriveFromFulfilments('holding', ['processing', 'back-order'])).toBe('holding');
    expect(deriveFromFulfilments('holding', ['dispatched'])).toBe('complete');
    expect(deriveFromFulfilments('error', ['failed'])).toBe('failed');
    expect(deriveFromFulfilments('complete', ['dispatched', 'returned'])).toBe('partial');
    expect(deriveFromFulfilments('complete', ['returned'])).toBe('failed');
    expect(deriveFromFulfilments('partial', ['returned', 'failed'])).toBe('failed');
    expect(deriveFromFulfilments('partial', ['dispatched', 'cancelled'])).toBe('partial');
    expect(deriveFromFulfilments('complete', ['dispatched'])).toBe('complete');
    for (const status of ['draft', 'queued', 'scheduled', 'cancelled', 'failed'] as const) {
      expect(deriveFromFulfilments(status, ['dispatched'])).toBe(status);
    }
  });

  it('no order becomes returned from its fulfilments; one recorded as returned before settles at the final status', () => {
    const reachable = new Set<string>();
    const statuses = ['dispatched', 'returned', 'failed', 'cancelled', 'processing'] as const;
    for (const a of statuses) for (const b of statuses) for (const from of ['processing', 'complete', 'partial', 'holding', 'error'] as const) reachable.add(deriveFromFulfilments(from, [a, b]));
    expect(reachable.has('returned')).toBe(false);
    expect(deriveFromFulfilments('returned', ['returned', 'returned'])).toBe('failed');
    expect(deriveFromFulfilments('returned', ['returned', 'dispatched'])).toBe('partial');
  });

  it('the final status depends on the fulfilments alone, not on the order they finished in', () => {
    // A dispatched, B failed (partial), then A returned
    expect(deriveFromFulfilments(deriveFromFulfilments('processing', ['dispatched', 'failed']), ['returned', 'failed'])).toBe('failed');
    // A dispatched and returned while B is processing, then B failed
    expect(deriveFromFulfilments(deriveFromFulfilments('processing', ['returned', 'processing']), ['returned', 'failed'])).toBe('failed');
    // {returned, dispatched} either way round
    expect(deriveFromFulfilments(deriveFromFulfilments('processing', ['returned', 'processing']), ['returned', 'dispatched'])).toBe('partial');
    expect(deriveFromFulfilments(deriveFromFulfilments('processing', ['dispatched', 'dispatched']), ['returned', 'dispatched'])).toBe('partial');
  });

  it('supplier progress is recorded only on orders that were sent', () => {
    expect(ORDER_STATUSES.filter(acceptsSupplierProgress)).toEqual(['processing', 'holding', 'back-order', 'complete', 'returned', 'invalid', 'error', 'partial']);
  });
});

describe('fulfilment transitions', () => {
  it('allow exactly the listed moves', () => {
    const allowed: string[] = [];
    for (const from of FULFILMENT_STATUSES) for (const to of FULFILMENT_STATUSES) if (mayMoveFulfilment(from, to)) allowed.push(`${from}->${to}`);
    expect(allowed.sort()).toEqual(Object.entries(FULFILMENT_TRANSITIONS).flatMap(([from, tos]) => tos.map((t) => `${from}->${t}`)).sort());
    expect(mayMoveFulfilment('draft', 'dispatched')).toBe(false);
    expect(mayMoveFulfilment('dispatched', 'returned')).toBe(true);
    expect(mayMoveFulfilment('returned', 'dispatched')).toBe(false);
    for (const final of ['failed', 'cancelled', 'returned'] as const) expect(FULFILMENT_TRANSITIONS[final]).toEqual([]);
  });
});
