import http from 'node:http';
import https from 'node:https';
import got, { type Got } from 'got';
import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';

/** A product's figure as `GET /stock-levels` reports it. */
export interface StockFigure {
  stock: number;
  /** The product's SKU now, when the stock service tells it. */
  sku?: string | null;
}

/** Where the figures of rule S1 come from at sending time. */
export interface StockFigures {
  /** The current figures of these products of the team; a product the service does not know is absent. */
  figuresOf(teamCode: string, productUuids: readonly string[]): Promise<Map<string, StockFigure>>;
}

/**
 * Reads current figures from the stock subgraph, called directly (not through the gateway) with a
 * short-lived service JWT: `stockLevelsOf` (inaccessible in the supergraph) answers the rows of
 * the stock-levels feed for a list of products, the very figures and SKUs `GET /stock-levels`
 * lists; a deleted product (or one of another team) is not in it.
 */
export class StockSubgraphFigures implements StockFigures {
  private readonly client: Got;

  constructor(private readonly opts: { url: string; jwt: JwtSignOptions; timeoutMs?: number }) {
    const keepAlive = { keepAlive: true, maxSockets: 4 };
    this.client = got.extend({
      agent: { http: new http.Agent(keepAlive), https: new https.Agent(keepAlive) },
      timeout: { request: opts.timeoutMs ?? 10_000 },
      retry: { limit: 1, methods: ['POST'] },
      responseType: 'json',
    });
  }

  async figuresOf(teamCode: string, productUuids: readonly string[]): Promise<Map<string, StockFigure>> {
    const figures = new Map<string, StockFigure>();
    for (let i = 0; i < productUuids.length; i += 5000) {
      const body = await this.query<{ stockLevelsOf: { productUuid: string; sku: string | null; stock: number }[] }>(
        'query StockFigures($t: ID!, $p: [ID!]!) { stockLevelsOf(teamCode: $t, productUuids: $p) { productUuid sku stock } }',
        { t: teamCode, p: productUuids.slice(i, i + 5000) },
        teamCode,
      );
      for (const row of body.stockLevelsOf) figures.set(row.productUuid.toLowerCase(), { stock: row.stock, sku: row.sku });
    }
    return figures;
  }

  private async query<T>(query: string, variables: Record<string, unknown>, teamCode: string): Promise<T> {
    const token = signIdentity({ kind: 'service', service: 'webhooks' }, this.opts.jwt);
    const res = await this.client.post(this.opts.url, {
      json: { query, variables },
      headers: { authorization: `Bearer ${token}`, 'x-request-id': `webhooks-stock-${teamCode}` },
    });
    const payload = res.body as { data?: T; errors?: { message: string }[] };
    if (payload.errors?.length || !payload.data) {
      throw new Error(`stock subgraph answered ${res.statusCode}: ${payload.errors?.map((e) => e.message).join('; ') ?? 'no data'}`);
    }
    return payload.data;
  }
}
