import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute, UpstreamCall } from '../resource';
import { stockLevelMembers } from './mapper';
import { EDGE_STOCK_LEVELS, type StockLevelPageFields } from './operation';

/**
 * `GET /stock-levels`: every non-deleted product of the team as ONE JSON document,
 * `{"data":[{"sku":...,"stock":...},...]}`, streamed: the feed is read page by page (keyset, up to
 * 5000 products each) and each page is written as it arrives, so a team of 100 000 products takes
 * the memory of two pages, never of the list.
 */
export const listStockLevels: ResourceRoute = {
  method: 'GET',
  path: '/stock-levels',
  operationId: 'listStockLevels',
  access: CHANNEL_SCOPED,
  async handle({ stock, settings }) {
    return { status: 200, chunks: stockLevelsDocument(stock, settings.stockLevelsPageSize) };
  },
};

/**
 * The body's chunks: the first holds the opening and the first page (so nothing is sent before
 * the feed answered once), each next one a page, the last also the closing. The next page is
 * asked for as soon as a page arrives, while that page is being written, so the upstream and the
 * client's socket work at the same time; at most one page is fetched ahead.
 */
export async function* stockLevelsDocument(stock: UpstreamCall, pageSize: number): AsyncGenerator<string, void, undefined> {
  const fetchPage = (after: string | null): Promise<StockLevelPageFields> => {
    const page = stock(EDGE_STOCK_LEVELS, { after, first: pageSize }).then((r) => r.stockLevels);
    // Awaited later; until then a failure must not count as an unhandled rejection.
    page.catch(() => undefined);
    return page;
  };
  let pending = fetchPage(null);
  let opening = '{"data":[';
  let written = false;
  for (;;) {
    const page = await pending;
    const last = page.nextCursor === null;
    if (!last) pending = fetchPage(page.nextCursor);
    const members = stockLevelMembers(page.itemsJson);
    const separator = written && members ? ',' : '';
    written ||= members !== '';
    yield opening + separator + members + (last ? ']}' : '');
    opening = '';
    if (last) return;
  }
}
