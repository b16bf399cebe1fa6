import { amendmentRefusal, diffLines, MERCHANT_MESSAGES, refusal } from './amendment';

const at = new Date('2026-11-01T08:00:00.000Z');
/** Before the order's fulfillableFrom: the countdown is still running. */
const counting = { fulfillableFrom: new Date('2026-11-01T08:15:00.000Z'), now: new Date('2026-11-01T08:14:59.999Z') };

describe('rule O5: amendment acceptance', () => {
  it('accepts draft, queued and scheduled orders whose fulfilments are all drafts', () => {
    expect(amendmentRefusal({ status: 'draft', confirmedAt: null, fulfilmentStatuses: [] }, counting)).toBeNull();
    expect(amendmentRefusal({ status: 'queued', confirmedAt: at, fulfilmentStatuses: ['draft', 'draft'] }, counting)).toBeNull();
    expect(amendmentRefusal({ status: 'scheduled', confirmedAt: at, fulfilmentStatuses: ['draft'] }, counting)).toBeNull();
  });

  it('fulfilment-underway once a fulfilment reached a supplier', () => {
    expect(amendmentRefusal({ status: 'queued', confirmedAt: at, fulfilmentStatuses: ['draft', 'processing'] }, counting)?.reason).toBe('fulfilment-underway');
    expect(amendmentRefusal({ status: 'processing', confirmedAt: at, fulfilmentStatuses: ['processing'] }, counting)?.reason).toBe('fulfilment-underway');
    expect(amendmentRefusal({ status: 'complete', confirmedAt: at, fulfilmentStatuses: ['dispatched'] }, counting)?.reason).toBe('fulfilment-underway');
  });

  it('fulfilment-underway for a queued or scheduled order once its fulfillableFrom came (the timer sending it may not have run yet); a draft has no such time', () => {
    const due = { fulfillableFrom: counting.fulfillableFrom, now: counting.fulfillableFrom };
    for (const status of ['queued', 'scheduled'] as const) {
      const r = amendmentRefusal({ status, confirmedAt: at, fulfilmentStatuses: ['draft'] }, due);
      expect(r).toEqual({ reason: 'fulfilment-underway', merchantMessage: MERCHANT_MESSAGES['fulfilment-underway'], detail: expect.stringContaining('2026-11-01T08:15:00.000Z') });
    }
    expect(amendmentRefusal({ status: 'draft', confirmedAt: null, fulfilmentStatuses: [] }, { ...due, now: new Date('2027-01-01T00:00:00Z') })).toBeNull();
  });

  it('order-not-amendable for other states where nothing was sent', () => {
    for (const status of ['cancelled', 'holding', 'error', 'invalid'] as const) {
      const r = amendmentRefusal({ status, confirmedAt: null, fulfilmentStatuses: [] }, counting);
      expect(r?.reason).toBe('order-not-amendable');
      expect(r?.merchantMessage).toBe(MERCHANT_MESSAGES['order-not-amendable']);
    }
  });

  it('order-not-amendable for a cancelled order, whose cancelled fulfilments reached no supplier (was fulfilment-underway)', () => {
    expect(amendmentRefusal({ status: 'cancelled', confirmedAt: at, fulfilmentStatuses: ['cancelled', 'cancelled'] }, counting)).toEqual({
      reason: 'order-not-amendable',
      merchantMessage: MERCHANT_MESSAGES['order-not-amendable'],
      detail: 'The order is cancelled.',
    });
  });

  it('every reason has a merchant message; stock-held, being-rebuilt and unexpected-error come from the use case', () => {
    for (const reason of ['stock-held', 'being-rebuilt', 'unexpected-error'] as const) {
      expect(refusal(reason, 'why')).toEqual({ reason, merchantMessage: MERCHANT_MESSAGES[reason], detail: 'why' });
    }
  });
});

describe('line differences', () => {
  it('reports added, removed, changed and unchanged lines by line number', () => {
    const before = [
      { lineNumber: 1, sku: 'A', quantity: 1, productUuid: 'a' },
      { lineNumber: 2, sku: 'B', quantity: 2, productUuid: 'b' },
      { lineNumber: 3, sku: 'C', quantity: 3, productUuid: 'c' },
    ];
    const after = [
      { lineNumber: 3, sku: 'C', quantity: 3, productUuid: 'c' },
      { lineNumber: 1, sku: 'A', quantity: 5, productUuid: 'a' },
      { lineNumber: 4, sku: 'D', quantity: 1, productUuid: 'd' },
    ];
    const d = diffLines(before, after);
    expect(d).toEqual({
      addedLines: [{ lineNumber: 4, sku: 'D', previousSku: null, quantityBefore: null, quantityAfter: 1 }],
      removedLines: [{ lineNumber: 2, sku: 'B', previousSku: null, quantityBefore: 2, quantityAfter: null }],
      changedLines: [{ lineNumber: 1, sku: 'A', previousSku: null, quantityBefore: 1, quantityAfter: 5 }],
      unchangedLineNumbers: [3],
    });
    expect(diffLines(before, [{ lineNumber: 2, sku: 'X', quantity: 2, productUuid: 'x' }]).changedLines).toEqual([
      { lineNumber: 2, sku: 'X', previousSku: 'B', quantityBefore: 2, quantityAfter: 2 },
    ]);
    expect(diffLines(before, before)).toEqual({ addedLines: [], removedLines: [], changedLines: [], unchangedLineNumbers: [1, 2, 3] });
  });
});
