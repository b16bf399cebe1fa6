import { characterCount, longerThan, unstorableTextMessage } from './text';

describe('text the platform cannot keep', () => {
  it('names a NUL character and an unpaired surrogate, high or low, anywhere', () => {
    expect(unstorableTextMessage('A\u0000B')).toMatch(/NUL/);
    for (const text of ['\ud800', 'x\ud800X', '\udc00', 'x\udc00\ud800y']) expect(unstorableTextMessage(text)).toMatch(/surrogate/);
  });
  it('accepts any well-formed text, paired surrogates (emoji) included', () => {
    for (const text of ['', 'plain', 'Zoë', '😀', '\u2028', '\ud83d\ude00']) expect(unstorableTextMessage(text)).toBeNull();
  });
});

describe('characters', () => {
  it('are counted in code points, as PostgreSQL counts them', () => {
    expect(characterCount('\u{1F4E6}ab')).toBe(3);
    expect(longerThan('\u{1F4E6}'.repeat(255), 255)).toBe(false);
    expect(longerThan('\u{1F4E6}'.repeat(256), 255)).toBe(true);
    expect(longerThan('a'.repeat(256), 255)).toBe(true);
    expect(longerThan('a'.repeat(255), 255)).toBe(false);
  });
});
