import { randomBytes } from 'node:crypto';
import { generateSecret, SecretBox } from './secrets';

describe('signing secrets', () => {
  it('are whsec_ and 32 random bytes in base64url', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });

  it('are sealed with AES-256-GCM under the current key and open again', () => {
    const box = new SecretBox({ id: 'k1', key: randomBytes(32) });
    const sealed = box.seal('whsec_x', 'acme-shop');
    expect(sealed.keyId).toBe('k1');
    expect(sealed.sealed).not.toContain('whsec_x');
    expect(box.open(sealed, 'acme-shop')).toBe('whsec_x');
    expect(box.seal('whsec_x', 'acme-shop').sealed).not.toBe(sealed.sealed); // fresh IV every time
  });

  it('do not open on another channel, with a changed byte, or without the key', () => {
    const box = new SecretBox({ id: 'k1', key: randomBytes(32) });
    const sealed = box.seal('whsec_x', 'acme-shop');
    expect(() => box.open(sealed, 'acme-other')).toThrow();
    const [iv, tag, ct] = sealed.sealed.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => box.open({ keyId: 'k1', sealed: [iv, tag, flipped.toString('base64url')].join('.') }, 'acme-shop')).toThrow();
    expect(() => new SecretBox({ id: 'k2', key: randomBytes(32) }).open(sealed, 'acme-shop')).toThrow(/k1/);
  });

  it('do not open with a shortened tag (GCM would check only the bytes given)', () => {
    const box = new SecretBox({ id: 'k1', key: randomBytes(32) });
    const sealed = box.seal('whsec_x', 'acme-shop');
    const [iv, tag, ct] = sealed.sealed.split('.');
    const short = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open({ keyId: 'k1', sealed: [iv, short, ct].join('.') }, 'acme-shop')).toThrow();
  });

  it('open with a previous key after the key was rotated', () => {
    const old = { id: 'k1', key: randomBytes(32) };
    const sealed = new SecretBox(old).seal('whsec_old', 'acme-shop');
    const rotated = new SecretBox({ id: 'k2', key: randomBytes(32) }, [old]);
    expect(rotated.open(sealed, 'acme-shop')).toBe('whsec_old');
    expect(rotated.seal('whsec_new', 'acme-shop').keyId).toBe('k2');
  });

  it('refuse a key of the wrong length or a bad id', () => {
    expect(() => new SecretBox({ id: 'k1', key: randomBytes(16) })).toThrow(/32 bytes/);
    expect(() => new SecretBox({ id: 'k 1', key: randomBytes(32) })).toThrow(/id/);
    const k = { id: 'k1', key: randomBytes(32) };
    expect(() => new SecretBox(k, [k])).toThrow(/twice/);
  });
});
