import { Problem } from '@pf/platform/problems';
import { CHANNEL_SCOPED } from '../../domain/access';
import { PER_PAGE_ALIASES } from '../../domain/pagination';
import { isUuid } from '../../domain/uuid';
import type { ResourceRoute } from '../resource';
import { toProductList, toProductResource } from './mapper';
import { EDGE_PRODUCT, EDGE_PRODUCTS } from './operation';

/** `per-page` when the client sends none (the document's default). */
export const DEFAULT_PER_PAGE = 25;

export const listProducts: ResourceRoute = {
  method: 'GET',
  path: '/products',
  operationId: 'listProducts',
  access: CHANNEL_SCOPED,
  async handle({ gateway, query, channelUrl }) {
    // Already validated against the document (page 1..1000000, per-page and its other spellings
    // 1..100, active-state one value of the enum); `per-page` wins over `perPage` and `per_page`.
    const page = query.page === undefined ? 1 : Number(query.page);
    const perPageSent = ['per-page', ...PER_PAGE_ALIASES].map((name) => query[name]).find((v) => v !== undefined);
    const perPage = perPageSent === undefined ? DEFAULT_PER_PAGE : Number(perPageSent);
    const activeState = query['active-state'] === undefined ? undefined : String(query['active-state']);
    const { productPage } = await gateway(EDGE_PRODUCTS, { page, perPage, activeState: activeState ?? null });
    return { status: 200, body: toProductList(productPage, `${channelUrl}/products`, { activeState, perPage }) };
  },
};

export const PRODUCT_NOT_FOUND_DETAIL = 'This product could not be found.';

/** One body for every product the token cannot see: another team's, deleted, unknown, or not a uuid. */
export function productNotFound(): Problem {
  return Problem.notFound(PRODUCT_NOT_FOUND_DETAIL);
}

export const getProduct: ResourceRoute = {
  method: 'GET',
  path: '/products/{productUuid}',
  operationId: 'getProduct',
  access: CHANNEL_SCOPED,
  async handle({ gateway, params }) {
    const uuid = params.productUuid ?? '';
    // Not a uuid: no product has it; the same answer as an unknown one, without asking upstream.
    if (!isUuid(uuid)) throw productNotFound();
    const { product } = await gateway(EDGE_PRODUCT, { uuid });
    if (!product) throw productNotFound();
    return { status: 200, body: { data: toProductResource(product) } };
  },
};
