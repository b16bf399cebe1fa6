import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What a newcomer needs for the first calls; written to `.data/demo-credentials.json`. */
export interface DemoCredentials {
  restBaseUrl: string;
  graphqlUrl: string;
  channelId: string;
  token: string;
  backOfficeJwt: string;
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  // Credentials: readable by the owner only.
  await writeFile(file, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
}

/**
 * The identity-JWT secret of this installation: generated on first start and kept, so a
 * back-office JWT printed yesterday still works after a restart.
 */
export async function installationSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'secrets.json');
  const existing = await readJson<{ jwtSecret: string }>(file);
  if (existing?.jwtSecret) return existing.jwtSecret;
  const jwtSecret = randomBytes(32).toString('base64url');
  await writeJson(file, { jwtSecret });
  return jwtSecret;
}
