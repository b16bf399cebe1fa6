import jwt from 'jsonwebtoken';
import { verifyIdentity } from '@pf/platform/identity';
import { IdentityMinter } from './identity';

const SIGN = { algorithm: 'HS256' as const, key: 'test-signing-key-of-enough-length', issuer: 'pf-test', audience: 'pf-test-api' };

describe('IdentityMinter', () => {
  let now: number;
  beforeEach(() => {
    now = Date.UTC(2026, 10, 22, 12, 0, 0);
    jest.useFakeTimers({ now });
  });
  afterEach(() => jest.useRealTimers());

  const minter = (extra: { maxChannelJwts?: number } = {}) => new IdentityMinter(SIGN, { channelTtlSeconds: 60, clock: () => now, ...extra });
  const advance = (ms: number) => {
    now += ms;
    jest.setSystemTime(now);
  };

  it('mints a channel JWT naming the team and the channel, living the configured seconds', () => {
    const token = minter().channelJwt('acme', 'acme-shop');
    expect(verifyIdentity(token, SIGN)).toEqual({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' });
    const { iat, exp } = jwt.decode(token) as { iat: number; exp: number };
    expect(exp - iat).toBe(60);
  });

  it('carries the team state the credentials check found, and keeps a JWT per state', () => {
    const identities = minter();
    const active = identities.channelJwt('acme', 'acme-shop', true);
    const inactive = identities.channelJwt('acme', 'acme-shop', false);
    expect(verifyIdentity(active, SIGN)).toEqual({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop', teamActive: true });
    expect(verifyIdentity(inactive, SIGN)).toEqual({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop', teamActive: false });
    expect(identities.channelJwt('acme', 'acme-shop', true)).toBe(active);
  });

  it('reuses a channel JWT until half its life, then mints a new one', () => {
    const identities = minter();
    const first = identities.channelJwt('acme', 'acme-shop');
    advance(29_999);
    expect(identities.channelJwt('acme', 'acme-shop')).toBe(first);
    advance(1);
    const second = identities.channelJwt('acme', 'acme-shop');
    expect(second).not.toBe(first);
    // the renewed one has its whole life ahead
    expect((jwt.decode(second) as { exp: number }).exp * 1000).toBe(now + 60_000);
  });

  it('keeps one JWT per team and channel', () => {
    const identities = minter();
    const shop = identities.channelJwt('acme', 'acme-shop');
    const other = identities.channelJwt('acme', 'acme-b2b');
    const otherTeam = identities.channelJwt('beta', 'acme-shop');
    expect(new Set([shop, other, otherTeam]).size).toBe(3);
    expect(verifyIdentity(otherTeam, SIGN)).toEqual({ kind: 'channel', teamCode: 'beta', channelId: 'acme-shop' });
    expect(identities.channelJwt('acme', 'acme-shop')).toBe(shop);
  });

  it('drops the oldest channel JWTs past its bound', () => {
    const identities = minter({ maxChannelJwts: 2 });
    const first = identities.channelJwt('acme', 'c1');
    const second = identities.channelJwt('acme', 'c2');
    identities.channelJwt('acme', 'c3');
    expect(identities.channelJwt('acme', 'c2')).toBe(second);
    advance(1000); // a fresh signature differs from the dropped one
    expect(identities.channelJwt('acme', 'c1')).not.toBe(first);
  });

  it('reuses the service JWT until half its life', () => {
    const identities = new IdentityMinter(SIGN, { channelTtlSeconds: 60, serviceTtlSeconds: 300, clock: () => now });
    const first = identities.serviceJwt();
    expect(verifyIdentity(first, SIGN)).toEqual({ kind: 'service', service: 'rest-edge' });
    advance(149_999);
    expect(identities.serviceJwt()).toBe(first);
    advance(1);
    expect(identities.serviceJwt()).not.toBe(first);
  });
});
