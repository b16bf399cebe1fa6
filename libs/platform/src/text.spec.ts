import { unstorableTextMessage } from './text';

describe('text the platform cannot keep', () => {
  it('names a NUL character and an unpaired surrogate, high or low, anywhere', () => {
    expect(unstorableTextMessage('A\u0000B')).toMatch(/NUL/);
    for (const text of ['\ud800', 'x\ud800X', '\udc00', 'x\udc00\ud800y']) expect(unstorableTextMessage(text)).toMatch(/surrogate/);
  });
  it('accepts any well-formed text, paired surrogates (emoji) included', () => {
    for (const text of ['', 'plain', 'Zoë', '😀', '\u2028', '\ud83d\ude00']) expect(unstorableTextMessage(text)).toBeNull();
  });
});
