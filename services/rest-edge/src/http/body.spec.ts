import { refuseInvalidUtf8 } from './body';

describe('the body must be UTF-8', () => {
  it('passes UTF-8, emoji and all; refuses bytes that are not', () => {
    expect(() => refuseInvalidUtf8(null, null, Buffer.from('{"a":"Zoë 😀"}'))).not.toThrow();
    expect(() => refuseInvalidUtf8(null, null, Buffer.alloc(0))).not.toThrow();
    for (const bytes of [[0xff, 0xfe], [0xc0, 0xaf], [0x7b, 0xed, 0xa0, 0x80, 0x7d]]) {
      expect(() => refuseInvalidUtf8(null, null, Buffer.from(bytes))).toThrow(/UTF-8/);
    }
  });
});
