// Identity JWTs for the calls a benchmark makes itself (setting data up, calling the gateway or a
// subgraph directly), minted with the platform's own signIdentity so the claims are exactly those
// the edge mints and the subgraphs check.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { signIdentity } = require('@pf/platform/identity');

/** A fresh HS256 setting for one run: the secret is shared by every process of that run. */
export function benchJwtSettings() {
  return { algorithm: 'HS256', key: randomBytes(32).toString('hex'), issuer: 'pf-platform', audience: 'pf-graph' };
}

/** The JWT environment of a service process (verification side). */
export function jwtEnv(settings) {
  return {
    JWT_ALGORITHM: settings.algorithm,
    JWT_VERIFY_KEY: settings.key,
    JWT_ISSUER: settings.issuer,
    JWT_AUDIENCE: settings.audience,
  };
}

/** A platform-operator (service) identity, as the edge or a seeder uses. */
export function serviceJwt(settings, service = 'bench', ttlSeconds = 3600) {
  return signIdentity({ kind: 'service', service }, { ...settings, expiresInSeconds: ttlSeconds });
}

/** The identity the edge mints for a request of one channel. */
export function channelJwt(settings, teamCode, channelId, ttlSeconds = 3600) {
  return signIdentity({ kind: 'channel', teamCode, channelId }, { ...settings, expiresInSeconds: ttlSeconds });
}
