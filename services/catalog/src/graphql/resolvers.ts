import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { SubgraphContext } from '@pf/platform/graphql/subgraph';
import type { Product, ShippingMethod } from '../domain/model';
import type {
  CatalogUseCases,
  CreateProductInput,
  CreateShippingMethodInput,
  ProductListFilter,
  UpdateProductInput,
  UpdateShippingMethodInput,
} from '../use-cases';

/** Per-request context of the catalog subgraph. */
export interface CatalogContext extends SubgraphContext {
  catalog: CatalogUseCases;
}

const iso = (d: Date) => d.toISOString();

type Args<T> = T & Record<string, unknown>;

/**
 * Thin resolvers: each passes the caller's identity and its arguments to one use case, which
 * authorises and does the work. Timestamps leave as ISO 8601 strings.
 */
export const resolvers: GraphQLResolverMap<CatalogContext> = {
  Query: {
    product: (_: unknown, args: Args<{ uuid: string; includeDeleted?: boolean | null }>, ctx: CatalogContext) =>
      ctx.catalog.getProduct(ctx.identity, args.uuid, args.includeDeleted),
    products: (
      _: unknown,
      args: Args<{ first?: number | null; after?: string | null; filter?: ProductListFilter | null; teamCode?: string | null }>,
      ctx: CatalogContext,
    ) => ctx.catalog.listProducts(ctx.identity, args),
    productPage: (
      _: unknown,
      args: Args<{ page?: number | null; perPage?: number | null; activeState?: string | null; teamCode?: string | null }>,
      ctx: CatalogContext,
    ) => ctx.catalog.productPage(ctx.identity, args),
    validateSkus: (_: unknown, args: Args<{ skus: string[]; teamCode?: string | null }>, ctx: CatalogContext) =>
      ctx.catalog.validateSkus(ctx.identity, args.skus, args.teamCode),
    shippingMethods: (
      _: unknown,
      args: Args<{ includeInactive?: boolean | null; countryCode?: string | null; teamCode?: string | null }>,
      ctx: CatalogContext,
    ) => ctx.catalog.getShippingMethods(ctx.identity, args),
    shippingMethod: (_: unknown, args: Args<{ code: string; teamCode?: string | null }>, ctx: CatalogContext) =>
      ctx.catalog.getShippingMethod(ctx.identity, args.code, args.teamCode),
  },
  Mutation: {
    createProduct: (_: unknown, args: Args<{ input: CreateProductInput }>, ctx: CatalogContext) =>
      ctx.catalog.createProduct(ctx.identity, args.input),
    updateProduct: (_: unknown, args: Args<{ uuid: string; input: UpdateProductInput; expectedVersion?: number | null }>, ctx: CatalogContext) =>
      ctx.catalog.updateProduct(ctx.identity, args.uuid, args.input, args.expectedVersion),
    deleteProduct: (_: unknown, args: Args<{ uuid: string; expectedVersion?: number | null }>, ctx: CatalogContext) =>
      ctx.catalog.deleteProduct(ctx.identity, args.uuid, args.expectedVersion),
    createShippingMethod: (_: unknown, args: Args<{ input: CreateShippingMethodInput }>, ctx: CatalogContext) =>
      ctx.catalog.createShippingMethod(ctx.identity, args.input),
    updateShippingMethod: (_: unknown, args: Args<{ code: string; input: UpdateShippingMethodInput }>, ctx: CatalogContext) =>
      ctx.catalog.updateShippingMethod(ctx.identity, args.code, args.input),
    deleteShippingMethod: (_: unknown, args: Args<{ code: string }>, ctx: CatalogContext) =>
      ctx.catalog.deleteShippingMethod(ctx.identity, args.code),
  },
  Product: {
    // Other subgraphs reference products by uuid; the caller's team decides what resolves.
    __resolveReference: (ref: { uuid: string }, ctx: CatalogContext) => ctx.catalog.resolveProductReference(ctx.identity, ref.uuid),
    deleted: (p: Product) => p.deletedAt !== null,
    deletedAt: (p: Product) => (p.deletedAt ? iso(p.deletedAt) : null),
    createdAt: (p: Product) => iso(p.createdAt),
    updatedAt: (p: Product) => iso(p.updatedAt),
  },
  ShippingMethod: {
    // Another team's code reads as null, as in the shippingMethod query.
    __resolveReference: (ref: { teamCode: string; code: string }, ctx: CatalogContext) =>
      ctx.catalog.getShippingMethod(ctx.identity, ref.code, ref.teamCode),
    createdAt: (m: ShippingMethod) => iso(m.createdAt),
    updatedAt: (m: ShippingMethod) => iso(m.updatedAt),
  },
};
