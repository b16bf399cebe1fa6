/**
 * Laravel-style pagination of numbered pages (spec section 2, "Pagination": `meta` with `from`,
 * `to`, `path` and `links`; `GET /products` also has top-level `links`), reproduced member for
 * member from Laravel's LengthAwarePaginator and its UrlWindow, which the integrations of this API
 * were written against.
 */

/** What a numbered page reports about itself (the catalog's `ProductPage` less its items). */
export interface PageFacts {
  /** The page asked for, from 1 (may lie beyond the last page: it is then empty). */
  page: number;
  perPage: number;
  /** Items on every page. */
  total: number;
  /** At least 1. */
  lastPage: number;
  /** 1-based position of the page's first item; null when the page is empty. */
  from: number | null;
  /** 1-based position of the page's last item; null when the page is empty. */
  to: number | null;
}

/** The top-level `links` of a list: absolute URLs, `prev`/`next` null at the ends. */
export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

/** One entry of `meta.links`: "Previous", a page number, "..." (a gap) or "Next". */
export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  links: PageLink[];
  /** The list's URL without query. */
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

/**
 * The other spellings of `per-page` a list takes: camelCase, and `per_page`, the name `meta`
 * answers with. `per-page` wins when several are sent; links always use `per-page`.
 */
export const PER_PAGE_ALIASES = ['perPage', 'per_page'] as const;

/** Pages shown on each side of the current one in `meta.links` (Laravel's `onEachSide`). */
export const ON_EACH_SIDE = 3;

export const PREVIOUS_LABEL = 'Previous';
export const NEXT_LABEL = 'Next';
export const GAP_LABEL = '...';

/**
 * The URL of each page: `path`, then the list's other query parameters as the client sent them
 * (in the given order, values percent-encoded), then `page`. Parameters with an undefined value
 * are left out, so a link repeats exactly the choices the client made.
 */
export function pageUrls(path: string, query: readonly (readonly [name: string, value: string | number | undefined])[]): (page: number) => string {
  const kept = query
    .filter((entry): entry is readonly [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${strictlyEncoded(name)}=${strictlyEncoded(String(value))}`);
  const prefix = `${path}?${kept.map((p) => `${p}&`).join('')}page=`;
  return (page) => `${prefix}${page}`;
}

/** RFC 3986 percent-encoding: `encodeURIComponent` leaves `!'()*` as they are, which are reserved. */
function strictlyEncoded(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Top-level `links` and `meta` of one page. */
export function paginate(facts: PageFacts, path: string, urlOf: (page: number) => string): { links: PageLinks; meta: PageMeta } {
  const { page, lastPage } = facts;
  const prev = page > 1 ? urlOf(page - 1) : null;
  const next = page < lastPage ? urlOf(page + 1) : null;
  return {
    links: { first: urlOf(1), last: urlOf(lastPage), prev, next },
    meta: {
      current_page: page,
      from: facts.from,
      last_page: lastPage,
      links: [
        { url: prev, label: PREVIOUS_LABEL, active: false },
        ...pageWindow(page, lastPage).map((n) =>
          n === null ? { url: null, label: GAP_LABEL, active: false } : { url: urlOf(n), label: String(n), active: n === page },
        ),
        { url: next, label: NEXT_LABEL, active: false },
      ],
      path,
      per_page: facts.perPage,
      to: facts.to,
      total: facts.total,
    },
  };
}

/**
 * The page numbers `meta.links` lists, `null` for a gap (Laravel's UrlWindow): every page while
 * there are fewer than 2 * onEachSide + 8; otherwise the start (1, 2), a window of onEachSide
 * pages around the current one and the end (last - 1, last), with the window merged into the
 * start or the end when the current page is near it.
 */
export function pageWindow(page: number, lastPage: number, onEachSide = ON_EACH_SIDE): (number | null)[] {
  if (lastPage < onEachSide * 2 + 8) return range(1, lastPage);
  const window = onEachSide + 4;
  if (page <= window) return [...range(1, window + onEachSide), null, ...range(lastPage - 1, lastPage)];
  if (page > lastPage - window) return [...range(1, 2), null, ...range(lastPage - (window + (onEachSide - 1)), lastPage)];
  return [...range(1, 2), null, ...range(page - onEachSide, page + onEachSide), null, ...range(lastPage - 1, lastPage)];
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let n = from; n <= to; n++) out.push(n);
  return out;
}
