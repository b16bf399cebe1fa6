import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';

export const EDGE_SERVICE_NAME = 'rest-edge';

export interface IdentityMinterOptions {
  /** Lifetime of a channel JWT. */
  channelTtlSeconds: number;
  /** Lifetime of the edge's service JWT. */
  serviceTtlSeconds?: number;
  /** Channel JWTs kept for reuse; past it the oldest are dropped. */
  maxChannelJwts?: number;
  clock?: () => number;
}

interface Minted {
  jwt: string;
  renewAt: number;
}

/**
 * Mints the identity JWTs the edge's upstream calls carry (ARCHITECTURE principle 4):
 * - a channel JWT naming the token's team and channel, living seconds;
 * - the edge's own service JWT, for `channelTokenCheck` and readiness probes.
 *
 * Each is reused until it is half-way through its life (an upstream never gets one with less
 * than half its lifetime left), so signing is not paid on every request. Reuse is safe: the JWT
 * only says who the caller is; whether its token and channel may still be used is checked by
 * the edge on every request before any JWT is handed out (spec section 5).
 */
export class IdentityMinter {
  private service?: Minted;
  /** Per team and channel; a Map iterates in insertion order, so the first entry is the oldest. */
  private readonly channels = new Map<string, Minted>();
  private readonly serviceTtlSeconds: number;
  private readonly maxChannelJwts: number;
  private readonly clock: () => number;

  constructor(
    private readonly sign: Omit<JwtSignOptions, 'expiresInSeconds'>,
    private readonly opts: IdentityMinterOptions,
  ) {
    this.serviceTtlSeconds = opts.serviceTtlSeconds ?? 300;
    this.maxChannelJwts = opts.maxChannelJwts ?? 10_000;
    this.clock = opts.clock ?? (() => Date.now());
  }

  /** `teamActive`: the team's state as this request's credentials check found it (carried to the subgraphs). */
  channelJwt(teamCode: string, channelId: string, teamActive?: boolean): string {
    const now = this.clock();
    // Codes and ids hold no newline, so the key is unambiguous.
    const key = `${teamCode}\n${channelId}\n${teamActive ?? ''}`;
    const kept = this.channels.get(key);
    if (kept && now < kept.renewAt) return kept.jwt;
    if (kept) this.channels.delete(key);
    const minted = this.mint(now, this.opts.channelTtlSeconds, () =>
      signIdentity(
        { kind: 'channel', teamCode, channelId, ...(teamActive !== undefined ? { teamActive } : {}) },
        { ...this.sign, expiresInSeconds: this.opts.channelTtlSeconds },
      ),
    );
    this.channels.set(key, minted);
    if (this.channels.size > this.maxChannelJwts) this.channels.delete(this.channels.keys().next().value as string);
    return minted.jwt;
  }

  serviceJwt(): string {
    const now = this.clock();
    if (!this.service || now >= this.service.renewAt) {
      this.service = this.mint(now, this.serviceTtlSeconds, () =>
        signIdentity({ kind: 'service', service: EDGE_SERVICE_NAME }, { ...this.sign, expiresInSeconds: this.serviceTtlSeconds }),
      );
    }
    return this.service.jwt;
  }

  private mint(now: number, ttlSeconds: number, sign: () => string): Minted {
    return { jwt: sign(), renewAt: now + (ttlSeconds * 1000) / 2 };
  }
}
