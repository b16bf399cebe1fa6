import { decodeOrderCursor, encodeOrderCursor } from './order-cursor';

describe('the order cursor', () => {
  it('gives back the order position it was made of', () => {
    const position = { updatedAt: '2026-11-27T02:03:02.968Z', uuid: 'c0b3d54d-1f2e-4c3b-9a8d-7e6f5a4b3c2d' };
    expect(decodeOrderCursor(encodeOrderCursor(position))).toEqual(position);
  });

  it('is undefined for what this API did not give', () => {
    expect(decodeOrderCursor('not-a-cursor')).toBeUndefined();
  });
});
