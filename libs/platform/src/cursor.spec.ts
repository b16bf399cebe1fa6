import { decodePosition, encodePosition } from './cursor';

describe('position cursors', () => {
  const position = { at: new Date('2026-11-27T02:03:02.968Z'), uuid: 'c0b3d54d-1f2e-4c3b-9a8d-7e6f5a4b3c2d' };

  it('give back the position they were made of, in URL-safe characters', () => {
    const cursor = encodePosition(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePosition(cursor)).toEqual(position);
    expect(decodePosition(encodePosition({ ...position, uuid: position.uuid.toUpperCase() }))).toEqual(position);
  });

  it('are undefined for any text they did not make', () => {
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of [
      '',
      'not a cursor',
      '%%%',
      'e30',
      made(['2026-11-27T02:03:02.968Z']),
      made([1, position.uuid]),
      made(['2026-11-27T02:03:02.968Z', 'not-a-uuid']),
      made(['2026-11-27T02:03:02Z', position.uuid]), // not the canonical form
      made(['yesterday', position.uuid]),
      made({ at: '2026-11-27T02:03:02.968Z', uuid: position.uuid }),
    ]) {
      expect(decodePosition(text)).toBeUndefined();
    }
  });
});
