import { decodeOrderCursor, encodeOrderCursor, nextOrderCursor } from './order-cursor';

describe('the order cursor', () => {
  it('gives back the order position it was made of', () => {
    const position = { updatedAt: '2026-11-27T02:03:02.968Z', uuid: 'c0b3d54d-1f2e-4c3b-9a8d-7e6f5a4b3c2d' };
    expect(decodeOrderCursor(encodeOrderCursor(position))).toEqual(position);
  });

  it('is undefined for what this API did not give', () => {
    expect(decodeOrderCursor('not-a-cursor')).toBeUndefined();
  });
});

describe('nextOrderCursor', () => {
  const now = Date.parse('2026-11-27T03:00:00.000Z');
  const at = (secondsAgo: number, uuid: string) => ({ updatedAt: new Date(now - secondsAgo * 1000).toISOString(), uuid });
  const page = [at(120, '00000000-0000-4000-8000-000000000001'), at(61, '00000000-0000-4000-8000-000000000002'), at(59, '00000000-0000-4000-8000-000000000003')];

  it('points at the last order changed at least the settle time ago', () => {
    expect(decodeOrderCursor(nextOrderCursor(page, undefined, now, 60_000)!)).toEqual(page[1]);
    expect(decodeOrderCursor(nextOrderCursor(page, undefined, now, 0)!)).toEqual(page[2]);
  });

  it('stays where the request started when no order is that old, or the page is empty', () => {
    expect(nextOrderCursor(page, 'before', now, 600_000)).toBe('before');
    expect(nextOrderCursor(page, undefined, now, 600_000)).toBeNull();
    expect(nextOrderCursor([], 'before', now, 0)).toBe('before');
  });
});
