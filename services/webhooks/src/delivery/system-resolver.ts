import { promises as dns } from 'node:dns';
import type { HostResolver, ResolvedAddress } from '../domain/url-policy';

/** The longest a resolution may take (SystemResolver's default `limitMs`). */
export const DNS_LIMIT_MS = 10_000;

/** DNS answers that mean "this name has no such records", as opposed to a failing server. */
const NO_RECORDS = new Set([dns.NODATA, dns.NOTFOUND, 'ENODATA', 'ENOTFOUND']);

/**
 * Asks DNS for the A and AAAA records of a name (c-ares, off the libuv thread pool), fresh on
 * every call: rule W1 runs with fresh DNS before every attempt. A name with neither resolves to
 * an empty list; a failing server is an error (a temporary refusal, retried later).
 */
export class SystemResolver implements HostResolver {
  private readonly resolver: dns.Resolver;
  private readonly limitMs: number;

  /**
   * `limitMs` bounds a whole resolution, however many servers and tries c-ares goes through (each
   * try's time-out doubles): an attempt, and with it a delivery's lease, must not wait on DNS for
   * longer (webhooks config checks the lease against it). `servers` replaces the system's (tests).
   */
  constructor(opts: { timeoutMs?: number; tries?: number; limitMs?: number; servers?: string[] } = {}) {
    this.resolver = new dns.Resolver({ timeout: opts.timeoutMs ?? 3000, tries: opts.tries ?? 2 });
    if (opts.servers) this.resolver.setServers(opts.servers);
    this.limitMs = opts.limitMs ?? DNS_LIMIT_MS;
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`DNS did not answer for ${hostname} within ${this.limitMs} ms`), { code: 'ETIMEOUT' })), this.limitMs);
    });
    try {
      const [v4, v6] = await Promise.race([Promise.all([this.query(() => this.resolver.resolve4(hostname)), this.query(() => this.resolver.resolve6(hostname))]), limit]);
      return [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
    } finally {
      clearTimeout(timer);
    }
  }

  private async query(fn: () => Promise<string[]>): Promise<string[]> {
    try {
      return await fn();
    } catch (err) {
      if (NO_RECORDS.has((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw err;
    }
  }
}
