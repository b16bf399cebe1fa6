import { characterCount, longerThan, memberPath, unstorableTextMembers, unstorableTextMessage } from './text';

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

describe('unstorableTextMembers', () => {
  it('names the value itself as asked when it is such text', () => {
    expect(unstorableTextMembers('\u0000', 'input')).toEqual([{ property: 'input', message: expect.stringMatching(/NUL/) }]);
  });

  const named = (body: unknown) => unstorableTextMembers(body).map((v) => v.property);

  it('names every member holding a NUL, nested ones included', () => {
    const body = { orderNumber: 'A\u0000B', orderLines: [{ product: { sku: 'ok' } }, { product: { sku: '\u0000' } }], note: ['x', 'y\u0000'], 'a\u0000': 1 };
    expect(named(body)).toEqual(['orderNumber', 'orderLines[1].product.sku', 'note[1]', '["a\\u0000"]']);
  });

  it('names a member holding an unpaired surrogate, and says why', () => {
    expect(unstorableTextMembers({ orderNumber: 'x\ud800X', city: '😀', 'k\udc00': 'v' })).toEqual([
      { property: 'orderNumber', message: expect.stringMatching(/surrogate/) },
      { property: '["k\\udc00"]', message: expect.stringMatching(/surrogate/) },
    ]);
  });

  it('finds nothing in clean bodies, numbers and nulls', () => {
    expect(named({ a: 'x', b: [1, null, true], c: { d: '' } })).toEqual([]);
    expect(named(undefined)).toEqual([]);
    expect(named('\u0000')).toEqual(['body']);
  });

  it('walks a body nested 100 000 deep without overflowing, and names at most 20 members', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [found] = named({ a: deep });
    expect(found!.startsWith('a[0][0]')).toBe(true);
    expect(named(Array.from({ length: 50 }, () => '\u0000'))).toHaveLength(20);
  });
});

describe('memberPath', () => {
  it('names members as the contract does: indexes in brackets, plain names after dots, others quoted', () => {
    expect(memberPath(['orderLines', '7', 'product', 'sku'])).toBe('orderLines[7].product.sku');
    expect(memberPath(['active-state'])).toBe('active-state');
    expect(memberPath(['meta', 'a b'])).toBe('meta["a b"]');
    expect(memberPath([])).toBe('');
  });
});
