import { defineOperation } from '../../upstream/graphql';

export interface StockLevelFields {
  sku: string | null;
  stock: number;
}

export interface StockLevelPageFields {
  items: StockLevelFields[];
  /** The last product of this page; null on the last page. */
  nextCursor: string | null;
}

/**
 * `GET /stock-levels`: one keyset page of the team's stock feed (every non-deleted product,
 * in product uuid order, with its rule S1 figure). Sent to the stock subgraph directly when
 * STOCK_URL is set, else to the gateway; `stockLevels` is the same root field on both.
 */
export const EDGE_STOCK_LEVELS = defineOperation<{ after: string | null; first: number }, { stockLevels: StockLevelPageFields }>(`
  query EdgeStockLevels($after: String, $first: Int!) {
    stockLevels(after: $after, first: $first) { nextCursor items { sku stock } }
  }
`);
