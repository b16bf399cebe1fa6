import type { JwtSignOptions } from '@pf/platform/identity';
import { SubgraphClient } from '../upstream/subgraph-client';

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
  private readonly client: SubgraphClient;

  constructor(opts: { url: string; jwt: JwtSignOptions; timeoutMs?: number }) {
    this.client = new SubgraphClient({ ...opts, name: 'stock' });
  }

  async figuresOf(teamCode: string, productUuids: readonly string[]): Promise<Map<string, StockFigure>> {
    const figures = new Map<string, StockFigure>();
    for (let i = 0; i < productUuids.length; i += 5000) {
      const body = await this.client.query<{ stockLevelsOf: { productUuid: string; sku: string | null; stock: number }[] }>(
        'query StockFigures($t: ID!, $p: [ID!]!) { stockLevelsOf(teamCode: $t, productUuids: $p) { productUuid sku stock } }',
        { t: teamCode, p: productUuids.slice(i, i + 5000) },
        `webhooks-stock-${teamCode}`,
      );
      for (const row of body.stockLevelsOf) figures.set(row.productUuid.toLowerCase(), { stock: row.stock, sku: row.sku });
    }
    return figures;
  }
}
