import { defineOperation } from '../../upstream/graphql';

export interface StockLevelPageFields {
  /**
   * The page's stock levels as the JSON text of an array of `{"sku": ..., "stock": ...}`, exactly
   * the members of the REST body's `data`: the edge copies it without parsing or re-serialising a row.
   */
  itemsJson: string;
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
    stockLevels(after: $after, first: $first) { nextCursor itemsJson }
  }
`);
