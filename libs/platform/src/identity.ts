import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import jwt, { type Algorithm } from 'jsonwebtoken';
import { Problem } from './problems';

/**
 * Who is calling, as it travels from the edge (or a back-office identity provider) through the
 * gateway to the subgraphs. Subgraphs enforce visibility from it.
 * - channel: an integration, authenticated by the edge with the channel's API token.
 * - backoffice: a merchant user of one team.
 * - service: one of our own services calling another (the edge resolving a token, orders holding stock).
 */
export type Identity =
  | {
      kind: 'channel';
      teamCode: string;
      channelId: string;
      /**
       * The team's state as the edge found it when it authenticated this request (spec section 5:
       * the credentials check reads it). Subgraphs judge the inactive-team rules of section 7 on
       * it, ahead of their own read models, which learn of a change only when its event arrives.
       * Absent from identities minted elsewhere (tests, tools): the read model decides then.
       */
      teamActive?: boolean;
    }
  | { kind: 'backoffice'; teamCode: string; userId: string }
  | { kind: 'service'; service: string };

interface Claims {
  kind: Identity['kind'];
  team?: string;
  channel?: string;
  teamActive?: boolean;
  sub: string;
}

export interface JwtVerifyOptions {
  algorithm: Algorithm;
  /** Shared secret (HS*) or PEM public key (RS256/ES256). */
  key: string;
  /**
   * Keys that also verify while the signing key rotates (JWT_VERIFY_KEY_PREVIOUS): a token signed
   * with the old key stays good until it expires. Never used to sign.
   */
  previousKeys?: readonly string[];
  issuer: string;
  audience: string;
}

export interface JwtSignOptions extends JwtVerifyOptions {
  /** Lifetime in seconds. The edge mints short-lived tokens per request. */
  expiresInSeconds: number;
}

export function signIdentity(identity: Identity, opts: JwtSignOptions): string {
  const claims: Claims =
    identity.kind === 'channel'
      ? {
          kind: 'channel',
          team: identity.teamCode,
          channel: identity.channelId,
          ...(identity.teamActive !== undefined ? { teamActive: identity.teamActive } : {}),
          sub: `channel:${identity.channelId}`,
        }
      : identity.kind === 'backoffice'
        ? { kind: 'backoffice', team: identity.teamCode, sub: identity.userId }
        : { kind: 'service', sub: `service:${identity.service}` };
  return jwt.sign(claims, keyObject('sign', opts), {
    algorithm: opts.algorithm,
    issuer: opts.issuer,
    audience: opts.audience,
    expiresIn: opts.expiresInSeconds,
  });
}

/** Verifies signature, issuer, audience and expiry; throws an `unauthenticated` Problem otherwise. */
export function verifyIdentity(token: string, opts: JwtVerifyOptions): Identity {
  let claims: Claims;
  try {
    claims = verifiedClaims(token, opts);
  } catch (err) {
    // An expired token says so (a client renews it); other failures say no more than that the token
    // is not valid: jsonwebtoken's messages spell out the audience and issuer it expected.
    const expired = err instanceof jwt.TokenExpiredError || err instanceof jwt.NotBeforeError;
    throw new Problem('unauthenticated', { detail: expired ? `Invalid identity token: ${(err as Error).message}` : 'Invalid identity token.' });
  }
  // A token without an expiry would be good for ever: every token this platform signs has one.
  if (typeof (claims as { exp?: unknown }).exp !== 'number') {
    throw new Problem('unauthenticated', { detail: 'Invalid identity token: it has no expiry (exp).' });
  }
  switch (claims.kind) {
    case 'channel':
      if (typeof claims.team === 'string' && typeof claims.channel === 'string') {
        return {
          kind: 'channel',
          teamCode: claims.team,
          channelId: claims.channel,
          ...(typeof claims.teamActive === 'boolean' ? { teamActive: claims.teamActive } : {}),
        };
      }
      break;
    case 'backoffice':
      if (typeof claims.team === 'string' && typeof claims.sub === 'string') {
        return { kind: 'backoffice', teamCode: claims.team, userId: claims.sub };
      }
      break;
    case 'service':
      if (typeof claims.sub === 'string' && claims.sub.startsWith('service:')) {
        return { kind: 'service', service: claims.sub.slice('service:'.length) };
      }
      break;
  }
  throw new Problem('unauthenticated', { detail: 'Identity token has no valid subject claims.' });
}

/**
 * jsonwebtoken turns a string key into a KeyObject on every call, first trying it as a PEM and
 * catching the failure: about 0.8 ms per sign or verify, on every request of every hop. Converted
 * once and kept here, the same call takes microseconds.
 */
const keyObjects = new Map<string, KeyObject | string>();

/**
 * The token's claims, checked with the current key, then with each previous one while its
 * signature is what fails (an expired token, a wrong audience or issuer fail alike with any key).
 */
function verifiedClaims(token: string, opts: JwtVerifyOptions): Claims {
  const keys = [opts.key, ...(opts.previousKeys ?? [])];
  for (let i = 0; ; i++) {
    try {
      return jwt.verify(token, keyObject('verify', { key: keys[i]! }), { algorithms: [opts.algorithm], issuer: opts.issuer, audience: opts.audience }) as Claims;
    } catch (err) {
      const badSignature = err instanceof jwt.JsonWebTokenError && err.message === 'invalid signature';
      if (!badSignature || i === keys.length - 1) throw err;
    }
  }
}

function keyObject(use: 'sign' | 'verify', opts: { key: string }): KeyObject | string {
  const id = `${use}\0${opts.key}`;
  let key = keyObjects.get(id);
  if (key === undefined) {
    // The same conversion jsonwebtoken does (a PEM first, else a secret), so a key that does not
    // fit the algorithm is refused exactly as before.
    try {
      key = use === 'sign' ? createPrivateKey(opts.key) : createPublicKey(opts.key);
    } catch {
      try {
        key = createSecretKey(Buffer.from(opts.key));
      } catch {
        key = opts.key;
      }
    }
    keyObjects.set(id, key);
  }
  return key;
}

/** Who made a change, as histories, logs and audit lines name the caller (`backoffice:<user>`). */
export function actorOf(identity: Identity): string {
  switch (identity.kind) {
    case 'channel':
      return `channel:${identity.channelId}`;
    case 'backoffice':
      return `backoffice:${identity.userId}`;
    case 'service':
      return `service:${identity.service}`;
  }
}

/** Reads `Authorization: Bearer <jwt>`; undefined when absent. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The team a caller acts for, or a `forbidden` Problem for callers that have none. */
export function teamOf(identity: Identity): string {
  if (identity.kind === 'service') throw new Problem('forbidden', { detail: 'This operation needs a team identity.' });
  return identity.teamCode;
}

/**
 * The team's state as the edge's credentials check found it, carried by a channel identity; null
 * when the caller carries none (back-office, services, identities minted by tools), and the
 * subgraph's own read model decides.
 */
export function teamActiveClaim(identity: Identity): boolean | null {
  return identity.kind === 'channel' && identity.teamActive !== undefined ? identity.teamActive : null;
}
