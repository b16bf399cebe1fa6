import http from 'node:http';
import https from 'node:https';
import got, { type Got } from 'got';
import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';

/** An error a subgraph answered with: its code (the problem type for a platform Problem). */
export class SubgraphError extends Error {
  constructor(
    message: string,
    readonly codes: readonly string[],
  ) {
    super(message);
    this.name = 'SubgraphError';
  }
}

/**
 * Another subgraph, called directly (not through the gateway) with a short-lived service JWT of
 * the webhooks service, over a small keep-alive pool.
 */
export class SubgraphClient {
  private readonly client: Got;

  constructor(private readonly opts: { url: string; jwt: JwtSignOptions; timeoutMs?: number; name: string }) {
    const keepAlive = { keepAlive: true, maxSockets: 4 };
    this.client = got.extend({
      agent: { http: new http.Agent(keepAlive), https: new https.Agent(keepAlive) },
      timeout: { request: opts.timeoutMs ?? 10_000 },
      retry: { limit: 1, methods: ['POST'] },
      responseType: 'json',
    });
  }

  /** The query's `data`; a SubgraphError when the subgraph answered errors instead. */
  async query<T>(query: string, variables: Record<string, unknown>, requestId: string): Promise<T> {
    const token = signIdentity({ kind: 'service', service: 'webhooks' }, this.opts.jwt);
    const res = await this.client.post(this.opts.url, {
      json: { query, variables },
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
    });
    const payload = res.body as { data?: T | null; errors?: { message: string; extensions?: { code?: string } }[] } | undefined;
    if (payload?.errors?.length || !payload?.data) {
      const errors = payload?.errors ?? [];
      throw new SubgraphError(
        `${this.opts.name} subgraph answered ${res.statusCode}: ${errors.map((e) => e.message).join('; ') || 'no data'}`,
        errors.map((e) => e.extensions?.code ?? ''),
      );
    }
    return payload.data;
  }
}
