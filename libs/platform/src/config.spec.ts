import { z } from 'zod';
import { commonConfigShape, ConfigError, env, loadConfig, serviceSigningKey } from './config';

/** Runs loadConfig and returns the ConfigError it throws. */
function configError(shape: z.ZodRawShape, values: Record<string, string>): ConfigError {
  try {
    loadConfig(shape, values);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  const shape = {
    PORT: env.port(3000),
    DATABASE_URL: env.url(),
    WORKERS: env.int(2, 1, 16),
    DEBUG: env.bool(false),
    BROKERS: env.list(['a:1']),
    MODE: env.oneOf(['kafka', 'memory'] as const, 'kafka'),
    NAME: env.string('svc'),
  };

  it('parses strings into typed values and applies defaults', () => {
    expect(loadConfig(shape, { DATABASE_URL: 'postgres://h/db', PORT: '8080', DEBUG: 'yes', BROKERS: 'x:1, y:2,,' })).toEqual({
      PORT: 8080,
      DATABASE_URL: 'postgres://h/db',
      WORKERS: 2,
      DEBUG: true,
      BROKERS: ['x:1', 'y:2'],
      MODE: 'kafka',
      NAME: 'svc',
    });
  });

  it('treats an empty or blank variable as unset, so the default applies', () => {
    expect(loadConfig(shape, { DATABASE_URL: 'postgres://h/db', PORT: '', NAME: '' })).toMatchObject({ PORT: 3000, NAME: 'svc' });
    // Not the number 0 that '  ' coerces to.
    expect(loadConfig(shape, { DATABASE_URL: 'postgres://h/db', PORT: '  ', WORKERS: ' ' })).toMatchObject({ PORT: 3000, WORKERS: 2 });
    expect(configError(shape, { DATABASE_URL: ' ' }).variables).toEqual(['DATABASE_URL']);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['WORKERS', '0'],
    ['WORKERS', '2.5'],
    ['DEBUG', 'maybe'],
    ['MODE', 'rabbit'],
    ['DATABASE_URL', 'not a url'],
  ])('names the bad variable %s=%s in the error', (name, value) => {
    const err = configError(shape, { DATABASE_URL: 'postgres://h/db', [name]: value });
    expect(err.variables).toEqual([name]);
    expect(err.message).toMatch(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });

  it('names a missing required variable', () => {
    const err = configError(shape, {});
    expect(err.variables).toEqual(['DATABASE_URL']);
    expect(err.message).toContain('DATABASE_URL');
  });

  it('names every bad variable at once, each once', () => {
    const err = configError(shape, { PORT: 'x', WORKERS: '99', MODE: 'y' });
    expect(err.variables.sort()).toEqual(['DATABASE_URL', 'MODE', 'PORT', 'WORKERS']);
    expect(err.name).toBe('ConfigError');
  });

  it('does not echo the rejected value (it may be a secret)', () => {
    const err = configError({ SECRET_URL: env.url() }, { SECRET_URL: 'hunter2-is-my-password' });
    expect(err.message).not.toContain('hunter2');
  });

  it('reads only the variables of the shape', () => {
    expect(loadConfig({ NAME: env.string() }, { NAME: 'a', OTHER: 'b' })).toEqual({ NAME: 'a' });
  });

  it('common config: the verify key is required, the rest has defaults', () => {
    expect(configError(commonConfigShape, {}).variables).toEqual(['JWT_VERIFY_KEY']);
    expect(loadConfig(commonConfigShape, { JWT_VERIFY_KEY: 'k' })).toEqual({
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      JWT_ALGORITHM: 'HS256',
      JWT_VERIFY_KEY: 'k',
      JWT_ISSUER: 'pf-platform',
      JWT_AUDIENCE: 'pf-graph',
      SHUTDOWN_TIMEOUT_MS: 10_000,
    });
    expect(configError(commonConfigShape, { JWT_VERIFY_KEY: 'k', JWT_ALGORITHM: 'none' }).variables).toEqual(['JWT_ALGORITHM']);
  });
});

describe('serviceSigningKey', () => {
  it('is the configured key, or with a shared secret (HS*) the verify key; a public key cannot sign, so RS256/ES256 need one', () => {
    expect(serviceSigningKey('private-pem', { algorithm: 'RS256', key: 'public-pem' }, 'stock calls')).toBe('private-pem');
    expect(serviceSigningKey(undefined, { algorithm: 'HS256', key: 'shared' }, 'stock calls')).toBe('shared');
    for (const algorithm of ['RS256', 'ES256']) {
      expect(() => serviceSigningKey(undefined, { algorithm, key: 'public-pem' }, 'stock calls')).toThrow(ConfigError);
      try {
        serviceSigningKey(undefined, { algorithm, key: 'public-pem' }, 'stock calls');
      } catch (err) {
        expect((err as ConfigError).variables).toEqual(['JWT_SIGNING_KEY']);
        expect((err as Error).message).toContain(`JWT_SIGNING_KEY: required with ${algorithm} (stock calls)`);
      }
    }
  });
});
