import { createHash } from 'node:crypto';
import { API_TOKEN_FORMAT, API_TOKEN_PREFIX, generateApiToken, hashApiToken, normaliseSha256 } from './tokens';

describe('API tokens', () => {
  it('have a recognisable prefix and 256 random bits in base64url', () => {
    const { token } = generateApiToken();
    expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    expect(token).toMatch(API_TOKEN_FORMAT);
    expect(Buffer.from(token.slice(API_TOKEN_PREFIX.length), 'base64url')).toHaveLength(32);
  });

  it('uses the random source for the whole secret part', () => {
    const bytes = Buffer.alloc(32, 0xff);
    const { token } = generateApiToken((n) => bytes.subarray(0, n));
    expect(token).toBe(`pft_${bytes.toString('base64url')}`);
  });

  it('is stored as the SHA-256 hex of the token, with only a short prefix in clear', () => {
    const generated = generateApiToken();
    expect(generated.sha256).toBe(createHash('sha256').update(generated.token).digest('hex'));
    expect(generated.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.prefix).toBe(generated.token.slice(0, 8));
    expect(generated.sha256).not.toContain(generated.token.slice(4));
  });

  it('differs every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => generateApiToken().token));
    expect(tokens.size).toBe(100);
  });

  it('hashes deterministically', () => {
    expect(hashApiToken('pft_abc')).toBe(hashApiToken('pft_abc'));
    expect(hashApiToken('pft_abc')).not.toBe(hashApiToken('pft_abd'));
  });

  it('normalises a caller-supplied hash and rejects anything else', () => {
    const hex = hashApiToken('x');
    expect(normaliseSha256(hex.toUpperCase())).toBe(hex);
    expect(normaliseSha256('abc')).toBeUndefined();
    expect(normaliseSha256(`${hex}0`)).toBeUndefined();
    expect(normaliseSha256("' OR 1=1 --")).toBeUndefined();
  });
});
