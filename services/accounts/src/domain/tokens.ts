import { createHash, randomBytes } from 'node:crypto';

/** Every channel API token starts with this, so leaked tokens are recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'pft_';

/** Random bytes per token: 256 bits. */
export const API_TOKEN_RANDOM_BYTES = 32;

/** Characters of the token kept in clear (`prefix`) so a back-office user can recognise it: `pft_` + 4. */
export const API_TOKEN_DISPLAY_LENGTH = API_TOKEN_PREFIX.length + 4;

/** `pft_` + 43 base64url characters. */
export const API_TOKEN_FORMAT = /^pft_[A-Za-z0-9_-]{43}$/;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A freshly generated token: `token` is shown once and never stored; `sha256` is what is stored. */
export interface GeneratedApiToken {
  token: string;
  sha256: string;
  prefix: string;
}

export function generateApiToken(random: (n: number) => Buffer = randomBytes): GeneratedApiToken {
  const token = API_TOKEN_PREFIX + random(API_TOKEN_RANDOM_BYTES).toString('base64url');
  return { token, sha256: hashApiToken(token), prefix: token.slice(0, API_TOKEN_DISPLAY_LENGTH) };
}

/**
 * The stored form of a token: lowercase SHA-256 hex of its UTF-8 bytes. A fast hash is right here
 * (unlike passwords): the token carries 256 random bits, so there is nothing to brute-force.
 */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Normalises a hash sent by a caller; undefined when it cannot be a SHA-256 hex digest. */
export function normaliseSha256(value: string): string | undefined {
  const lower = value.toLowerCase();
  return SHA256_HEX.test(lower) ? lower : undefined;
}
