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
 * short-lived service JWT, in one request per window: the stock subgraph's Product entities,
 * whose `stock` is the very figure `GET /stock-levels` reports.
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
    for (let i = 0; i < productUuids.length; i += 500) {
      const chunk = productUuids.slice(i, i + 500);
      const representations = chunk.map((uuid) => ({ __typename: 'Product', uuid }));
      const body = await this.query<{ _entities: ({ uuid: string; stock: number } | null)[] }>(
        'query StockFigures($r: [_Any!]!) { _entities(representations: $r) { ... on Product { uuid stock } } }',
        { r: representations },
        teamCode,
      );
      for (const entity of body._entities) if (entity) figures.set(entity.uuid.toLowerCase(), { stock: entity.stock });
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
