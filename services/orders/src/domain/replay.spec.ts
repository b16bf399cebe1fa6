import { replayDecision } from './replay';

const confirmed = new Date('2026-11-01T08:00:00.000Z');

describe('rule O2: replay of POST /orders', () => {
  it('no existing order is not a replay (the use case creates one); each existing state per row of the table:', () => {
    // draft, or held before confirmation -> 201, replaced
    expect(replayDecision({ status: 'draft', confirmedAt: null })).toBe('replace');
    expect(replayDecision({ status: 'holding', confirmedAt: null })).toBe('replace');
  });

  it('confirmed and in progress (queued, scheduled, processing, holding, back-order, error) -> order-already-confirmed', () => {
    for (const status of ['queued', 'scheduled', 'processing', 'holding', 'back-order', 'error']) {
      expect(replayDecision({ status, confirmedAt: confirmed })).toBe('order-already-confirmed');
    }
    // Counting down to processing (queued) before confirmedAt existed: still confirmed.
    expect(replayDecision({ status: 'queued', confirmedAt: null })).toBe('order-already-confirmed');
  });

  it('finished (complete, cancelled, failed, returned, partial) -> order-not-updatable, even if once confirmed', () => {
    for (const status of ['complete', 'cancelled', 'failed', 'returned', 'partial']) {
      expect(replayDecision({ status, confirmedAt: confirmed })).toBe('order-not-updatable');
      expect(replayDecision({ status, confirmedAt: null })).toBe('order-not-updatable');
    }
  });

  it('a finished status is checked first: a cancelled draft is not replaced', () => {
    expect(replayDecision({ status: 'cancelled', confirmedAt: null })).toBe('order-not-updatable');
  });

  it('otherwise not changeable (invalid, or a status this version does not know) -> order-not-updatable', () => {
    expect(replayDecision({ status: 'invalid', confirmedAt: confirmed })).toBe('order-not-updatable');
    expect(replayDecision({ status: 'something-new', confirmedAt: null })).toBe('order-not-updatable');
  });
});
