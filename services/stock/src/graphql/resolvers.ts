import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { SubgraphContext } from '@pf/platform/graphql/subgraph';
import type { StockAdjustment, StockHold, Warehouse, WarehouseStock } from '../domain/model';
import type { HoldResult, HoldStockInput, ProductStock, StockLevelPage, StockUseCases } from '../use-cases';
import { stockLevelsJson } from '../domain/feed';
import type { AdjustStockInput, CreateWarehouseInput, SetStockInput, UpdateWarehouseInput } from '../use-cases';
import { BatchLoader } from '@pf/platform/graphql/batch-loader';

/** Per-request context of the stock subgraph. */
export interface StockContext extends SubgraphContext {
  stock: StockUseCases;
  /** Product entities of this request, loaded together. */
  products: BatchLoader<string, ProductStock>;
}

export function stockContext(base: SubgraphContext, stock: StockUseCases): StockContext {
  return { ...base, stock, products: new BatchLoader((uuids) => stock.productStocks(base.identity, uuids)) };
}

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Thin resolvers: each passes the caller's identity and its arguments to one use case, which
 * authorises and does the work. Timestamps leave as ISO 8601 strings, enums in upper case.
 * The feed's StockLevel rows use the default resolvers: a page of 5000 is plain objects.
 */
export const resolvers: GraphQLResolverMap<StockContext> = {
  Query: {
    stockLevels: (_: unknown, args: { teamCode?: string | null; after?: string | null; first?: number | null }, ctx: StockContext) =>
      ctx.stock.stockLevels(ctx.identity, args),
    stockLevelsOf: (_: unknown, args: { teamCode: string; productUuids: string[] }, ctx: StockContext) =>
      ctx.stock.stockLevelsOf(ctx.identity, args.teamCode, args.productUuids),
    warehouses: (_: unknown, args: { teamCode?: string | null }, ctx: StockContext) => ctx.stock.listWarehouses(ctx.identity, args.teamCode),
    warehouse: (_: unknown, args: { id: string }, ctx: StockContext) => ctx.stock.getWarehouse(ctx.identity, args.id),
    stockAdjustments: (_: unknown, args: { productUuid: string; first?: number | null }, ctx: StockContext) =>
      ctx.stock.stockAdjustments(ctx.identity, args.productUuid, args.first),
    orderHolds: (_: unknown, args: { orderUuid: string }, ctx: StockContext) => ctx.stock.orderHolds(ctx.identity, args.orderUuid),
  },
  Mutation: {
    createWarehouse: (_: unknown, args: { input: CreateWarehouseInput }, ctx: StockContext) => ctx.stock.createWarehouse(ctx.identity, args.input),
    updateWarehouse: (_: unknown, args: { id: string; input: UpdateWarehouseInput }, ctx: StockContext) =>
      ctx.stock.updateWarehouse(ctx.identity, args.id, args.input),
    setStock: (_: unknown, args: { input: SetStockInput }, ctx: StockContext) => ctx.stock.setStock(ctx.identity, args.input),
    adjustStock: (_: unknown, args: { input: AdjustStockInput }, ctx: StockContext) => ctx.stock.adjustStock(ctx.identity, args.input),
    holdStock: (_: unknown, args: { input: HoldStockInput }, ctx: StockContext) => ctx.stock.holdStock(ctx.identity, args.input),
    releaseHolds: (_: unknown, args: { orderUuid: string; locationCodes?: string[] | null; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.releaseHolds(ctx.identity, args.orderUuid, args.locationCodes, args.fence),
    reinstateHolds: (_: unknown, args: { orderUuid: string; holdIds: string[]; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.reinstateHolds(ctx.identity, args.orderUuid, args.holdIds, args.fence),
    restoreHolds: (_: unknown, args: { orderUuid: string; holdIds: string[]; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.restoreHolds(ctx.identity, args.orderUuid, args.holdIds, args.fence),
    consumeHolds: (_: unknown, args: { orderUuid: string; locationCodes?: string[] | null; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.consumeHolds(ctx.identity, args.orderUuid, args.locationCodes, args.fence),
    returnHolds: (_: unknown, args: { orderUuid: string; locationCodes?: string[] | null; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.returnHolds(ctx.identity, args.orderUuid, args.locationCodes, args.fence),
    reconsumeHolds: (_: unknown, args: { orderUuid: string; holdIds: string[]; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.reconsumeHolds(ctx.identity, args.orderUuid, args.holdIds, args.fence),
    unconsumeHolds: (_: unknown, args: { orderUuid: string; holdIds: string[]; fence?: string | null }, ctx: StockContext) =>
      ctx.stock.unconsumeHolds(ctx.identity, args.orderUuid, args.holdIds, args.fence),
    fenceOrderHolds: (_: unknown, args: { orderUuid: string; fence: string }, ctx: StockContext) =>
      ctx.stock.fenceOrderHolds(ctx.identity, args.orderUuid, args.fence),
  },
  Product: {
    // A deleted product is no entity for channels and merchants, as in the catalog (only services,
    // which old orders' lines lead to, see it): a figure beside the catalog's null made the gateway
    // fail the whole product (Product.name cannot be null) on an order line of a deleted product.
    __resolveReference: async (ref: { uuid: string }, ctx: StockContext) => {
      const found = await ctx.products.load(ref.uuid.toLowerCase());
      return found && (!found.product.deleted || ctx.identity.kind === 'service') ? found : null;
    },
    uuid: (p: ProductStock) => p.product.uuid,
    stock: (p: ProductStock) => p.stock,
    warehouseStock: (p: ProductStock, _: unknown, ctx: StockContext) => ctx.stock.warehouseStockOf(ctx.identity, p),
  },
  Warehouse: {
    createdAt: (w: Warehouse) => iso(w.createdAt),
    updatedAt: (w: Warehouse) => iso(w.updatedAt),
  },
  StockLevelPage: {
    itemsJson: (page: StockLevelPage) => stockLevelsJson(page.items),
  },
  WarehouseStock: {
    available: (s: WarehouseStock) => Math.max(s.onHand - s.held, 0),
  },
  StockAdjustment: {
    kind: (a: StockAdjustment) => a.kind.toUpperCase(),
    at: (a: StockAdjustment) => iso(a.at),
  },
  StockHold: {
    status: (h: StockHold) => h.status.toUpperCase(),
    placedAt: (h: StockHold) => iso(h.placedAt),
    releasedAt: (h: StockHold) => isoOrNull(h.releasedAt),
    consumedAt: (h: StockHold) => isoOrNull(h.consumedAt),
    returnedAt: (h: StockHold) => isoOrNull(h.returnedAt),
  },
  HoldStockResult: {
    __resolveType: (r: HoldResult) => (r.kind === 'held' ? 'StockHeld' : 'StockShort'),
  },
};
