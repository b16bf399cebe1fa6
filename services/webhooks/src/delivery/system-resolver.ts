import { promises as dns } from 'node:dns';
import type { HostResolver, ResolvedAddress } from '../domain/url-policy';

/** DNS answers that mean "this name has no such records", as opposed to a failing server. */
const NO_RECORDS = new Set([dns.NODATA, dns.NOTFOUND, 'ENODATA', 'ENOTFOUND']);

/**
 * Asks DNS for the A and AAAA records of a name (c-ares, off the libuv thread pool), fresh on
 * every call: rule W1 runs with fresh DNS before every attempt. A name with neither resolves to
 * an empty list; a failing server is an error (a temporary refusal, retried later).
 */
export class SystemResolver implements HostResolver {
  private readonly resolver: dns.Resolver;

  constructor(opts: { timeoutMs?: number; tries?: number } = {}) {
    this.resolver = new dns.Resolver({ timeout: opts.timeoutMs ?? 3000, tries: opts.tries ?? 2 });
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const [v4, v6] = await Promise.all([this.query(() => this.resolver.resolve4(hostname)), this.query(() => this.resolver.resolve6(hostname))]);
    return [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
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
