import type { Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { longerThan } from '@pf/platform/text';
import { authoriseIncludeDeleted, mayReadProduct, readableTeam } from '../domain/authorisation';
import type { ActiveState, Product } from '../domain/model';
import { cursorPageRequest, encodeCursor, isUuid, numberedPageRequest, pageFacts, pageOffset, trimProbe, type PageFacts } from '../domain/pagination';
import { activeStateViolations, SKU_MAX_LENGTH } from '../domain/products';
import { skuMatches, validateSkusViolations, type SkuMatch } from '../domain/sku-validation';
import {
  countProducts,
  findLiveProductsBySku,
  findProduct,
  listProductsNewestFirst,
  listProductsOldestFirst,
  type ProductFilter,
} from '../repositories/catalog-repository';
import type { CatalogDeps } from './deps';

/**
 * Reads, filtered by what the caller may see. Anything outside the caller's team, or deleted
 * (unless a back-office caller asks for deleted products), reads as absent, exactly like a product
 * that does not exist. A malformed uuid is absent too, never an error.
 */

/** A product by uuid. Back-office callers may ask for a deleted one. */
export async function getProduct(deps: CatalogDeps, identity: Identity, uuid: string, includeDeleted?: boolean | null): Promise<Product | null> {
  const withDeleted = authoriseIncludeDeleted(identity, includeDeleted);
  if (!isUuid(uuid)) return null;
  const product = await findProduct(deps.prisma, uuid.toLowerCase());
  return product && mayReadProduct(identity, product, withDeleted) ? product : null;
}

/**
 * A federated reference to a product (from another subgraph's field). Team identities see their
 * team's live products; service identities also see deleted ones (an old order still names its
 * products).
 */
export async function resolveProductReference(deps: CatalogDeps, identity: Identity, uuid: string): Promise<Product | null> {
  if (!isUuid(uuid)) return null;
  const product = await findProduct(deps.prisma, uuid.toLowerCase());
  return product && mayReadProduct(identity, product, identity.kind === 'service') ? product : null;
}

export interface ProductListFilter {
  activeState?: string | null;
  sku?: string | null;
  search?: string | null;
  includeDeleted?: boolean | null;
}

export interface ProductConnection {
  edges: { cursor: string; node: Product }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Counted only when asked for (a second query). */
  totalCount: () => Promise<number>;
}

const SEARCH_MAX_LENGTH = 255;

function filterViolations(filter: ProductListFilter): Violation[] {
  return [
    ...(filter.activeState != null ? activeStateViolations(filter.activeState, 'filter.activeState') : []),
    ...(filter.sku != null && (filter.sku.length === 0 || longerThan(filter.sku, SKU_MAX_LENGTH))
      ? [{ property: 'filter.sku', message: `A SKU has 1 to ${SKU_MAX_LENGTH} characters.` }]
      : []),
    ...(filter.search != null && filter.search.length > SEARCH_MAX_LENGTH
      ? [{ property: 'filter.search', message: `A search term has at most ${SEARCH_MAX_LENGTH} characters.` }]
      : []),
  ];
}

const emptyConnection = (): ProductConnection => ({
  edges: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  totalCount: async () => 0,
});

/**
 * The back-office list: a Relay-style connection, newest first, `first` (1-100, default 20)
 * after an opaque cursor, filtered by active state, exact SKU, a case-insensitive search in name
 * and SKU, and optionally including deleted products.
 */
export async function listProducts(
  deps: CatalogDeps,
  identity: Identity,
  args: { first?: number | null; after?: string | null; filter?: ProductListFilter | null; teamCode?: string | null },
): Promise<ProductConnection> {
  const filter = args.filter ?? {};
  const page = cursorPageRequest(args.first, args.after);
  const violations = [...page.violations, ...filterViolations(filter)];
  if (violations.length > 0 || !page.request) throw Problem.validation(violations);
  const includeDeleted = authoriseIncludeDeleted(identity, filter.includeDeleted);
  const teamCode = readableTeam(identity, args.teamCode);
  if (teamCode === null) return emptyConnection();
  const where: ProductFilter = {
    teamCode,
    activeState: (filter.activeState ?? undefined) as ActiveState | undefined,
    sku: filter.sku ?? undefined,
    search: filter.search?.trim() || undefined,
    includeDeleted,
  };
  const { first, after } = page.request;
  const rows = await listProductsNewestFirst(deps.prisma, where, after, first + 1);
  const { items, hasNextPage } = trimProbe(rows, first);
  const edges = items.map((node) => ({ cursor: encodeCursor(node), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    totalCount: () => countProducts(deps.prisma, where),
  };
}

export interface ProductPage extends PageFacts {
  items: Product[];
}

/**
 * Numbered pages of the team's live products, oldest first, for the Channel API's
 * `GET /products`: page (from 1), perPage (1-100, default 15), optional active state, the total.
 * A page after the last is empty (from and to null).
 */
export async function productPage(
  deps: CatalogDeps,
  identity: Identity,
  args: { page?: number | null; perPage?: number | null; activeState?: string | null; teamCode?: string | null },
): Promise<ProductPage> {
  const request = numberedPageRequest(args.page, args.perPage);
  const violations = [...request.violations, ...(args.activeState != null ? activeStateViolations(args.activeState, 'activeState') : [])];
  if (violations.length > 0 || !request.request) throw Problem.validation(violations);
  const { page, perPage } = request.request;
  const teamCode = readableTeam(identity, args.teamCode);
  if (teamCode === null) return { items: [], ...pageFacts(page, perPage, 0, 0) };
  const where: ProductFilter = { teamCode, activeState: (args.activeState ?? undefined) as ActiveState | undefined, includeDeleted: false };
  const offset = pageOffset(page, perPage);
  // The count and the page in one snapshot, so that they agree while products change.
  const { total, items } = await deps.prisma.$transaction(
    async (tx) => {
      const counted = await countProducts(tx, where);
      return { total: counted, items: offset < counted ? await listProductsOldestFirst(tx, where, offset, perPage) : [] };
    },
    { isolationLevel: 'RepeatableRead' },
  );
  return { items, ...pageFacts(page, perPage, total, items.length) };
}

/**
 * For each SKU asked (at most 1000), whether a live product of the team has it, with its uuid
 * and active state. Deleted products match nothing.
 */
export async function validateSkus(deps: CatalogDeps, identity: Identity, skus: string[], teamCode?: string | null): Promise<SkuMatch[]> {
  const violations = validateSkusViolations(skus);
  if (violations.length > 0) throw Problem.validation(violations);
  const team = readableTeam(identity, teamCode);
  const products = team === null ? [] : await findLiveProductsBySku(deps.prisma, team, skus);
  return skuMatches(skus, products);
}
