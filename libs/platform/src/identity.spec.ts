import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { actorOf, bearerToken, signIdentity, teamActiveClaim, teamOf, verifyIdentity, type Identity, type JwtSignOptions } from './identity';
import { Problem } from './problems';

const hs: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'a-shared-secret-of-enough-length-for-hs256',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 60,
};

const identities: Identity[] = [
  { kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' },
  { kind: 'channel', teamCode: 'acme', channelId: 'acme-shop', teamActive: false },
  { kind: 'backoffice', teamCode: 'acme', userId: 'jane@acme.example' },
  { kind: 'service', service: 'rest-edge' },
];

/** Asserts that verification fails with an `unauthenticated` Problem, returning its detail. */
function refused(token: string, opts = hs): string {
  try {
    verifyIdentity(token, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(Problem);
    expect((err as Problem).problemType).toBe('unauthenticated');
    expect((err as Problem).status).toBe(401);
    return (err as Problem).message;
  }
  throw new Error('token was accepted');
}

describe('identity tokens', () => {
  it.each(identities)('round-trips a $kind identity (HS256)', (identity) => {
    expect(verifyIdentity(signIdentity(identity, hs), hs)).toEqual(identity);
  });

  describe('RS256', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const sign = { ...hs, algorithm: 'RS256' as const, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const verify = { ...hs, algorithm: 'RS256' as const, key: publicPem };

    it.each(identities)('round-trips a $kind identity (signed with the private key, verified with the public one)', (identity) => {
      expect(verifyIdentity(signIdentity(identity, sign), verify)).toEqual(identity);
    });

    it('refuses an HS256 token forged with the public key as its secret', () => {
      const forged = jwt.sign({ kind: 'service', sub: 'service:x' }, publicPem, {
        algorithm: 'HS256',
        issuer: hs.issuer,
        audience: hs.audience,
        allowInsecureKeySizes: true,
      } as jwt.SignOptions);
      refused(forged, verify);
    });
  });

  it('puts the standard claims in the token', () => {
    const claims = jwt.decode(signIdentity(identities[0]!, hs)) as Record<string, unknown>;
    expect(claims).toMatchObject({ kind: 'channel', team: 'acme', channel: 'acme-shop', iss: 'pf-test', aud: 'pf-graph' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
  });

  it('refuses an expired token', () => {
    const token = jwt.sign({ kind: 'service', sub: 'service:x', exp: Math.floor(Date.now() / 1000) - 5 }, hs.key, {
      algorithm: 'HS256',
      issuer: hs.issuer,
      audience: hs.audience,
    });
    expect(refused(token)).toMatch(/expired/);
  });

  it('refuses a token signed with another key', () => {
    expect(refused(signIdentity(identities[0]!, { ...hs, key: 'some-other-secret-of-enough-length-xxxx' }))).toBe('Invalid identity token.');
  });

  it('refuses a token for another audience or from another issuer, without telling which it expected', () => {
    expect(refused(signIdentity(identities[1]!, { ...hs, audience: 'someone-else' }))).toBe('Invalid identity token.');
    expect(refused(signIdentity(identities[1]!, { ...hs, issuer: 'evil-idp' }))).toBe('Invalid identity token.');
  });

  it('refuses a validly signed token without an expiry (it would be good for ever)', () => {
    const forever = jwt.sign({ kind: 'backoffice', team: 'acme', sub: 'jane' }, hs.key, { algorithm: 'HS256', issuer: hs.issuer, audience: hs.audience, noTimestamp: true });
    expect(refused(forever)).toMatch(/no expiry/);
  });

  it('refuses an unsigned token and one signed with an algorithm other than the configured one', () => {
    const unsigned = jwt.sign({ kind: 'service', sub: 'service:x' }, '', { algorithm: 'none', issuer: hs.issuer, audience: hs.audience });
    refused(unsigned);
    refused(signIdentity(identities[2]!, { ...hs, algorithm: 'HS512' }));
  });

  it('refuses a validly signed token whose claims name no subject of its kind', () => {
    const sign = (claims: object) => jwt.sign(claims, hs.key, { algorithm: 'HS256', issuer: hs.issuer, audience: hs.audience, expiresIn: 60 });
    expect(refused(sign({ kind: 'channel', team: 'acme', sub: 'channel:x' }))).toMatch(/claims/);
    expect(refused(sign({ kind: 'backoffice', sub: 'jane' }))).toMatch(/claims/);
    expect(refused(sign({ kind: 'service', sub: 'rest-edge' }))).toMatch(/claims/);
    expect(refused(sign({ kind: 'admin', sub: 'root' }))).toMatch(/claims/);
  });

  it('refuses garbage', () => {
    refused('not.a.jwt');
    refused('');
  });
});

describe('identity tokens while the key rotates (previousKeys)', () => {
  const who: Identity = { kind: 'service', service: 'orders' };
  const oldKey = { ...hs, key: 'the-old-shared-secret-of-at-least-32-bytes!' };
  const newKey = { ...hs, key: 'the-new-shared-secret-of-at-least-32-bytes!' };
  const verifying = { ...newKey, previousKeys: [oldKey.key] };

  it('a token signed with the previous key is still good; one signed with any other key is not', () => {
    expect(verifyIdentity(signIdentity(who, oldKey), verifying)).toEqual(who);
    expect(verifyIdentity(signIdentity(who, newKey), verifying)).toEqual(who);
    expect(() => verifyIdentity(signIdentity(who, oldKey), newKey)).toThrow('Invalid identity token.');
    expect(() => verifyIdentity(signIdentity(who, { ...hs, key: 'some-other-secret-of-at-least-32-bytes!!' }), verifying)).toThrow('Invalid identity token.');
  });

  it('the previous key does not revive what fails with any key: an expired token, another audience', () => {
    const expired = jwt.sign({ kind: 'service', sub: 'service:orders', exp: Math.floor(Date.now() / 1000) - 10 }, oldKey.key, { issuer: hs.issuer, audience: hs.audience });
    expect(() => verifyIdentity(expired, verifying)).toThrow(/jwt expired/);
    expect(() => verifyIdentity(signIdentity(who, { ...oldKey, audience: 'elsewhere' }), verifying)).toThrow('Invalid identity token.');
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header, case-insensitively', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer   abc ')).toBe('abc');
  });
  it('returns undefined for anything else', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken('Basic dXNlcjpwdw==')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });
});

describe('teamOf', () => {
  it('is the team of channel and back-office callers', () => {
    expect(teamOf(identities[0]!)).toBe('acme');
    expect(teamOf(identities[2]!)).toBe('acme');
  });
  it('is a forbidden Problem for a service caller', () => {
    expect(() => teamOf(identities[3]!)).toThrow(Problem);
    try {
      teamOf(identities[3]!);
    } catch (err) {
      expect((err as Problem).problemType).toBe('forbidden');
    }
  });
});

describe('teamActiveClaim', () => {
  it("is the edge's finding carried by a channel identity, else null (the read model decides)", () => {
    expect(teamActiveClaim({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop', teamActive: false })).toBe(false);
    expect(teamActiveClaim({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop', teamActive: true })).toBe(true);
    expect(teamActiveClaim({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' })).toBeNull();
    expect(teamActiveClaim({ kind: 'backoffice', teamCode: 'acme', userId: 'u' })).toBeNull();
  });
});

describe('actorOf', () => {
  it('names the caller of a change by kind: the channel, the back-office user, the service', () => {
    expect(actorOf({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' })).toBe('channel:acme-shop');
    expect(actorOf({ kind: 'backoffice', teamCode: 'acme', userId: 'u1' })).toBe('backoffice:u1');
    expect(actorOf({ kind: 'service', service: 'ops' })).toBe('service:ops');
  });
});
