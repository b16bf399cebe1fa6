import { Problem } from '@pf/platform/problems';
import { isUuid } from './validation';

/**
 * Paging of the stock-levels feed: keyset pagination in product uuid order. The cursor is the
 * uuid of the last product of the previous page (opaque to callers), so each page is one range
 * scan of an index, however deep, and a product created or deleted meanwhile never shifts the
 * pages after it.
 */
export const FEED_MAX_PAGE_SIZE = 5000;
export const FEED_DEFAULT_PAGE_SIZE = 1000;

export interface FeedPage {
  /** Exclusive lower bound: the last product uuid of the previous page, or null for the first page. */
  after: string | null;
  size: number;
}

export function feedPage(after: string | null | undefined, first: number | null | undefined): FeedPage {
  const violations = [];
  if (after != null && !isUuid(after)) violations.push({ property: 'after', message: 'Not a cursor of this feed.' });
  const size = first ?? FEED_DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > FEED_MAX_PAGE_SIZE) {
    violations.push({ property: 'first', message: `Must be from 1 to ${FEED_MAX_PAGE_SIZE}.` });
  }
  if (violations.length > 0) throw Problem.validation(violations);
  return { after: after?.toLowerCase() ?? null, size };
}

/** The rows of a feed page exactly as GET /stock-levels lists them (`{sku, stock}`), as JSON text. */
export function stockLevelsJson(rows: readonly { sku: string | null; stock: number }[]): string {
  return JSON.stringify(rows.map((r) => ({ sku: r.sku, stock: r.stock })));
}
