import { ConfigError } from '@pf/platform/config';
import { loadRestEdgeConfig } from './config';

describe('loadRestEdgeConfig', () => {
  it('has the documented defaults; only the signing key is required', () => {
    const cfg = loadRestEdgeConfig({ JWT_SIGNING_KEY: 'secret' });
    expect(cfg).toMatchObject({
      PORT: 8080,
      GATEWAY_URL: 'http://127.0.0.1:4000/graphql',
      ACCOUNTS_URL: 'http://127.0.0.1:4101/graphql',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'pf:edge:',
      RATE_LIMIT_STORE: 'redis',
      RATE_LIMIT_PER_TOKEN: 600,
      RATE_LIMIT_FAILED_AUTH_PER_IP: 60,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      TRUSTED_PROXIES: [],
      AUTH_CACHE_TTL_MS: 30_000,
      AUTH_CACHE_MAX_ENTRIES: 10_000,
      CHANNEL_JWT_TTL_SECONDS: 60,
      JWT_ALGORITHM: 'HS256',
      EVENT_BUS: 'kafka',
    });
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadRestEdgeConfig({
        GATEWAY_URL: 'not a url',
        RATE_LIMIT_PER_TOKEN: 'many',
        RATE_LIMIT_WINDOW_SECONDS: '0',
        TRUSTED_PROXIES: '10.0.0.0/8, proxy.example.com',
        RATE_LIMIT_STORE: 'disk',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables.sort()).toEqual(
      ['GATEWAY_URL', 'JWT_SIGNING_KEY', 'RATE_LIMIT_PER_TOKEN', 'RATE_LIMIT_STORE', 'RATE_LIMIT_WINDOW_SECONDS', 'TRUSTED_PROXIES'].sort(),
    );
    expect((error as Error).message).toMatch(/TRUSTED_PROXIES: .*proxy\.example\.com/);
  });

  it('reads trusted proxies as a list of addresses, networks and proxy-addr names', () => {
    const cfg = loadRestEdgeConfig({ JWT_SIGNING_KEY: 's', TRUSTED_PROXIES: ' 10.0.0.0/8 ,192.168.1.7, loopback, fd00::/8 ' });
    expect(cfg.TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
  });
});
