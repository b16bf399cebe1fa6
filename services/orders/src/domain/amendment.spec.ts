import { amendmentRefusal, diffLines, MERCHANT_MESSAGES, refusal } from './amendment';

const at = new Date('2026-11-01T08:00:00.000Z');

describe('rule O5: amendment acceptance', () => {
  it('accepts draft, queued and scheduled orders whose fulfilments are all drafts', () => {
    expect(amendmentRefusal({ status: 'draft', confirmedAt: null, fulfilmentStatuses: [] })).toBeNull();
    expect(amendmentRefusal({ status: 'queued', confirmedAt: at, fulfilmentStatuses: ['draft', 'draft'] })).toBeNull();
    expect(amendmentRefusal({ status: 'scheduled', confirmedAt: at, fulfilmentStatuses: ['draft'] })).toBeNull();
  });

  it('fulfilment-underway once a fulfilment reached a supplier', () => {
    expect(amendmentRefusal({ status: 'queued', confirmedAt: at, fulfilmentStatuses: ['draft', 'processing'] })?.reason).toBe('fulfilment-underway');
    expect(amendmentRefusal({ status: 'processing', confirmedAt: at, fulfilmentStatuses: ['processing'] })?.reason).toBe('fulfilment-underway');
    expect(amendmentRefusal({ status: 'complete', confirmedAt: at, fulfilmentStatuses: ['dispatched'] })?.reason).toBe('fulfilment-underway');
  });

  it('order-not-amendable for other states where nothing was sent', () => {
    for (const status of ['cancelled', 'holding', 'error', 'invalid'] as const) {
      const r = amendmentRefusal({ status, confirmedAt: null, fulfilmentStatuses: [] });
      expect(r?.reason).toBe('order-not-amendable');
      expect(r?.merchantMessage).toBe(MERCHANT_MESSAGES['order-not-amendable']);
    }
  });

  it('order-not-amendable for a cancelled order, whose cancelled fulfilments reached no supplier (was fulfilment-underway)', () => {
    expect(amendmentRefusal({ status: 'cancelled', confirmedAt: at, fulfilmentStatuses: ['cancelled', 'cancelled'] })).toEqual({
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
