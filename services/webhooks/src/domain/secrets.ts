import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Prefix of every signing secret, so one is recognisable in a config file or a log leak scan. */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64url (43 characters). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** One key of the keyring that encrypts secrets at rest. */
export interface SecretKey {
  /** Short id stored with every ciphertext, so keys can be rotated. */
  id: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

/** A secret as stored: which key sealed it, and `iv.tag.ciphertext` (base64url). */
export interface SealedSecret {
  keyId: string;
  sealed: string;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Encrypts signing secrets at rest with AES-256-GCM. New secrets are sealed with the current
 * key; older ciphertexts open with whichever key of the ring their id names, so the key can be
 * rotated by adding a new current key and keeping the old one as previous until every row has
 * been re-sealed. The channel id is bound as additional authenticated data: a ciphertext copied
 * onto another channel's row does not open.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private readonly current: SecretKey,
    previous: readonly SecretKey[] = [],
  ) {
    for (const k of [current, ...previous]) {
      if (!KEY_ID.test(k.id)) throw new Error(`Invalid secret key id "${k.id}"`);
      if (k.key.length !== 32) throw new Error(`Secret key "${k.id}" must be 32 bytes`);
      if (this.keys.has(k.id)) throw new Error(`Secret key id "${k.id}" is used twice`);
      this.keys.set(k.id, k.key);
    }
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(secret: string, channelId: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(channelId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return { keyId: this.current.id, sealed: [iv, tag, ciphertext].map((b) => b.toString('base64url')).join('.') };
  }

  /** @throws Error when the key is unknown or the ciphertext was tampered with (or belongs to another channel) */
  open(stored: SealedSecret, channelId: string): string {
    const key = this.keys.get(stored.keyId);
    if (!key) throw new Error(`No secret key "${stored.keyId}" in the keyring`);
    const [iv, tag, ciphertext] = stored.sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !ciphertext) throw new Error('Malformed sealed secret');
    // The full 16-byte tag: without the length, GCM checks only as many bytes as it is given.
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(channelId, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  }
}
