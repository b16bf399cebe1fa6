import { confirmedAtFromHistory, type HistoryEntry } from './confirmed-at-backfill';

const t = (iso: string) => new Date(iso);
const h = (from: string | null, to: string, at: string, trigger: string | null = null): HistoryEntry => ({ from, to, at: t(at), trigger });

describe('confirmedAt backfill from status history', () => {
  it('the first move out of draft before the cutoff is the confirmation', () => {
    expect(confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'queued', '2026-09-01T11:00:00Z'), h('queued', 'processing', '2026-09-01T11:15:00Z')])).toEqual(
      t('2026-09-01T11:00:00Z'),
    );
  });

  it('kept through cancellation and a holding because the order could not be sent', () => {
    expect(
      confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'scheduled', '2026-09-02T10:00:00Z'), h('scheduled', 'holding', '2026-09-03T10:00:00Z'), h('holding', 'cancelled', '2026-09-04T10:00:00Z')]),
    ).toEqual(t('2026-09-02T10:00:00Z'));
  });

  it('cleared by a move back to draft (a later confirmation counts) and by a rejected address', () => {
    expect(
      confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'queued', '2026-09-01T11:00:00Z'), h('queued', 'draft', '2026-09-01T12:00:00Z'), h('draft', 'queued', '2026-09-02T09:00:00Z')]),
    ).toEqual(t('2026-09-02T09:00:00Z'));
    expect(confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'queued', '2026-09-01T11:00:00Z'), h('queued', 'draft', '2026-09-01T12:00:00Z')])).toBeNull();
    expect(
      confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'queued', '2026-09-01T11:00:00Z'), h('queued', 'holding', '2026-09-01T12:00:00Z', 'reject-shipping-address')]),
    ).toBeNull();
  });

  it('never-confirmed orders, and confirmations from the cutoff on, are not backfilled', () => {
    expect(confirmedAtFromHistory([h(null, 'draft', '2026-09-01T10:00:00Z'), h('draft', 'cancelled', '2026-09-02T10:00:00Z')])).toBeNull();
    expect(confirmedAtFromHistory([h(null, 'draft', '2026-10-18T10:00:00Z'), h('draft', 'queued', '2026-10-19T00:00:00Z')])).toBeNull();
    expect(confirmedAtFromHistory([])).toBeNull();
  });

  it('history brought over starting in a confirmed status confirms at that entry; order of entries does not matter', () => {
    expect(confirmedAtFromHistory([h('queued', 'processing', '2026-09-01T11:15:00Z'), h(null, 'queued', '2026-09-01T11:00:00Z')])).toEqual(t('2026-09-01T11:00:00Z'));
  });
});
