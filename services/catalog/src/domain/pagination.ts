import { decodePosition, encodePosition } from '@pf/platform/cursor';
import type { Violation } from '@pf/platform/problems';

/**
 * Two ways through a team's products:
 * - cursor pages (back-office, Relay-style connection): `first` products after an opaque cursor,
 *   newest first; stable while products are added or deleted;
 * - numbered pages (the Channel API's `GET /products`, Laravel-style `meta`): `perPage` products
 *   of page `page`, oldest first, with the total. Oldest first keeps earlier pages unchanged when
 *   products are added.
 */

export const FIRST_DEFAULT = 20;
export const FIRST_MAX = 100;
export const PER_PAGE_DEFAULT = 15;
export const PER_PAGE_MAX = 100;
/** GraphQL Int is 32-bit; this also keeps OFFSET well inside what Postgres plans sensibly. */
export const PAGE_MAX = 1_000_000;

/** Where a cursor page starts: after the product with this creation time and uuid. */
export interface ProductCursor {
  createdAt: Date;
  uuid: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the textual form of a uuid; anything else can name no product. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Opaque to callers (see @pf/platform/cursor). */
export function encodeCursor(cursor: ProductCursor): string {
  return encodePosition({ at: cursor.createdAt, uuid: cursor.uuid });
}

/** The cursor, or undefined when `text` is not one of ours. */
export function decodeCursor(text: string): ProductCursor | undefined {
  const position = decodePosition(text);
  return position && { createdAt: position.at, uuid: position.uuid };
}

/** Validates `first` and `after` of a cursor page. */
export function cursorPageRequest(
  first: number | null | undefined,
  after: string | null | undefined,
): { request?: { first: number; after: ProductCursor | null }; violations: Violation[] } {
  const violations: Violation[] = [];
  const size = first ?? FIRST_DEFAULT;
  if (!Number.isInteger(size) || size < 1 || size > FIRST_MAX) {
    violations.push({ property: 'first', message: `first is between 1 and ${FIRST_MAX}.` });
  }
  const cursor = after == null ? null : decodeCursor(after);
  if (cursor === undefined) violations.push({ property: 'after', message: 'after is not a cursor this list returned.' });
  if (violations.length > 0) return { violations };
  return { request: { first: size, after: cursor ?? null }, violations };
}

/** Validates `page` and `perPage` of a numbered page. */
export function numberedPageRequest(
  page: number | null | undefined,
  perPage: number | null | undefined,
): { request?: { page: number; perPage: number }; violations: Violation[] } {
  const violations: Violation[] = [];
  const p = page ?? 1;
  const size = perPage ?? PER_PAGE_DEFAULT;
  if (!Number.isInteger(p) || p < 1 || p > PAGE_MAX) violations.push({ property: 'page', message: `page is between 1 and ${PAGE_MAX}.` });
  if (!Number.isInteger(size) || size < 1 || size > PER_PAGE_MAX) {
    violations.push({ property: 'perPage', message: `perPage is between 1 and ${PER_PAGE_MAX}.` });
  }
  if (violations.length > 0) return { violations };
  return { request: { page: p, perPage: size }, violations };
}

/** Rows to skip before page `page`. */
export function pageOffset(page: number, perPage: number): number {
  return (page - 1) * perPage;
}

/** The numbers a numbered page reports about itself (Laravel's `meta`, less the links). */
export interface PageFacts {
  page: number;
  perPage: number;
  total: number;
  /** At least 1, even for an empty list, so page 1 always exists. */
  lastPage: number;
  /** 1-based position of the first item on this page, null when the page is empty. */
  from: number | null;
  /** 1-based position of the last item on this page, null when the page is empty. */
  to: number | null;
}

export function pageFacts(page: number, perPage: number, total: number, itemsOnPage: number): PageFacts {
  const offset = pageOffset(page, perPage);
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const empty = itemsOnPage === 0;
  return { page, perPage, total, lastPage, from: empty ? null : offset + 1, to: empty ? null : offset + itemsOnPage };
}

/**
 * From `first + 1` rows fetched, the page itself and whether more follow (the extra row is only a
 * probe, never returned).
 */
export function trimProbe<T>(rows: T[], first: number): { items: T[]; hasNextPage: boolean } {
  return rows.length > first ? { items: rows.slice(0, first), hasNextPage: true } : { items: rows, hasNextPage: false };
}
