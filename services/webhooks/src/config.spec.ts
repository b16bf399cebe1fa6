import { ConfigError } from '@pf/platform/config';
import { loadWebhooksConfig } from './config';

const key = Buffer.alloc(32, 7).toString('base64');

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadWebhooksConfig(env, 'jwt-key');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('accepted');
}

describe('webhooks config', () => {
  it('defaults to the contract: 5 attempts (10, 100, 1000, 10000 s), 10 s time-out, 10-minute stock windows', () => {
    const cfg = loadWebhooksConfig({}, 'jwt-key');
    expect(cfg.WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([10, 100, 1000, 10000]);
    expect(cfg.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(cfg.WEBHOOK_STOCK_WINDOW_SECONDS).toBe(600);
    expect(cfg.allowedRanges).toEqual([]);
    expect(cfg.extraCa).toBeUndefined();
    expect(cfg.leaseSeconds).toBe(50);
  });

  it('takes short schedules for tests', () => {
    const cfg = loadWebhooksConfig({ WEBHOOK_RETRY_DELAYS_SECONDS: '0.1, 0.2,0.4', WEBHOOK_STOCK_WINDOW_SECONDS: '1.5' }, 'jwt-key');
    expect(cfg.WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([0.1, 0.2, 0.4]);
    expect(cfg.WEBHOOK_STOCK_WINDOW_SECONDS).toBe(1.5);
    expect(configError({ WEBHOOK_RETRY_DELAYS_SECONDS: '10,soon' }).variables).toEqual(['WEBHOOK_RETRY_DELAYS_SECONDS']);
  });

  it('refuses a lease that would not outlast an attempt (its time-out and its DNS check)', () => {
    expect(configError({ WEBHOOK_LEASE_SECONDS: '20' }).variables).toEqual(['WEBHOOK_LEASE_SECONDS']);
    expect(configError({ WEBHOOK_LEASE_SECONDS: '3', WEBHOOK_TIMEOUT_MS: '2000' }).variables).toEqual(['WEBHOOK_LEASE_SECONDS']);
    expect(loadWebhooksConfig({ WEBHOOK_LEASE_SECONDS: '3', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_DNS_TIMEOUT_MS: '500' }, 'jwt-key').leaseSeconds).toBe(3);
    expect(loadWebhooksConfig({ WEBHOOK_LEASE_SECONDS: '21' }, 'jwt-key').leaseSeconds).toBe(21);
  });

  it('derives a stable development key from the JWT key, and requires a real one in production', () => {
    const a = loadWebhooksConfig({}, 'jwt-key').secretKey;
    expect(a.key).toHaveLength(32);
    expect(loadWebhooksConfig({}, 'jwt-key').secretKey.key.equals(a.key)).toBe(true);
    expect(loadWebhooksConfig({}, 'other').secretKey.key.equals(a.key)).toBe(false);
    expect(configError({ NODE_ENV: 'production' }).variables).toEqual(['WEBHOOK_SECRET_KEY']);
    expect(loadWebhooksConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key }, 'jwt-key').secretKey.key.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(configError({ WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString('base64') }).variables).toEqual(['WEBHOOK_SECRET_KEY']);
  });

  it('reads previous keys for key rotation', () => {
    const cfg = loadWebhooksConfig({ WEBHOOK_SECRET_KEY: key, WEBHOOK_SECRET_KEY_ID: 'k2', WEBHOOK_SECRET_PREVIOUS_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` }, 'x');
    expect(cfg.secretKey.id).toBe('k2');
    expect(cfg.previousSecretKeys.map((k) => k.id)).toEqual(['k1']);
    expect(configError({ WEBHOOK_SECRET_PREVIOUS_KEYS: 'k1' }).variables).toEqual(['WEBHOOK_SECRET_PREVIOUS_KEYS']);
  });

  it('allows extra address ranges outside production only', () => {
    expect(loadWebhooksConfig({ WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32,::1' }, 'x').allowedRanges).toHaveLength(2);
    expect(configError({ WEBHOOK_ALLOW_PRIVATE_RANGES: '127.1' }).variables).toEqual(['WEBHOOK_ALLOW_PRIVATE_RANGES']);
    const refused = configError({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
    expect(refused.variables).toEqual(['WEBHOOK_ALLOW_PRIVATE_RANGES']);
    expect(refused.message).toContain('refused when NODE_ENV=production');
  });
});
