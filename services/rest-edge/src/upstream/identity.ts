import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';

export const EDGE_SERVICE_NAME = 'rest-edge';

/**
 * Mints the identity JWTs the edge's upstream calls carry (ARCHITECTURE principle 4):
 * - a channel JWT for each API request, naming the token's team and channel, living seconds;
 * - the edge's own service JWT, for `channelTokenCheck` and readiness probes, reused until it
 *   is half-way through its life.
 */
export class IdentityMinter {
  private service?: { jwt: string; renewAt: number };

  constructor(
    private readonly sign: Omit<JwtSignOptions, 'expiresInSeconds'>,
    private readonly channelTtlSeconds: number,
    private readonly serviceTtlSeconds = 300,
    private readonly clock: () => number = Date.now,
  ) {}

  channelJwt(teamCode: string, channelId: string): string {
    return signIdentity({ kind: 'channel', teamCode, channelId }, { ...this.sign, expiresInSeconds: this.channelTtlSeconds });
  }

  serviceJwt(): string {
    const now = this.clock();
    if (!this.service || now >= this.service.renewAt) {
      this.service = {
        jwt: signIdentity({ kind: 'service', service: EDGE_SERVICE_NAME }, { ...this.sign, expiresInSeconds: this.serviceTtlSeconds }),
        renewAt: now + (this.serviceTtlSeconds * 1000) / 2,
      };
    }
    return this.service.jwt;
  }
}
