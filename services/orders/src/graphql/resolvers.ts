import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { BatchLoader } from '@pf/platform/graphql/batch-loader';
import type { SubgraphContext } from '@pf/platform/graphql/subgraph';
import type { Fulfilment, Order, OrderLine, StatusChange, TrackingDetail } from '../domain/model';
import type { OrderInput, OrderLineInput, ShippingDetailsInput } from '../domain/order-input';
import type { Amendment, OrderFilter, OrderSort, OrdersUseCases, TrackingDetailInput } from '../use-cases';

/** Per-request context of the orders subgraph. */
export interface OrdersContext extends SubgraphContext {
  orders: OrdersUseCases;
  /** The status histories asked for in this request, loaded with one query. */
  histories: BatchLoader<string, StatusChange[]>;
}

/** The per-request context: the use cases and the request's loaders. */
export function ordersContext(base: SubgraphContext, orders: OrdersUseCases): OrdersContext {
  return { ...base, orders, histories: new BatchLoader((uuids) => orders.statusHistories(uuids)) };
}

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Thin resolvers: each passes the caller's identity and its arguments to one use case, which
 * authorises (rule O1) and does the work. Domain objects leave through the type resolvers below:
 * timestamps as ISO 8601 UTC strings, tracking with both recommended and legacy keys.
 */
export const resolvers: GraphQLResolverMap<OrdersContext> = {
  Query: {
    order: (_: unknown, args: { uuid: string }, ctx: OrdersContext) => ctx.orders.getOrder(ctx.identity, args.uuid),
    orders: (_: unknown, args: { filter?: OrderFilter | null; page?: number | null; perPage?: number | null; sort?: OrderSort | null }, ctx: OrdersContext) =>
      ctx.orders.listOrders(ctx.identity, args),
  },
  Mutation: {
    createOrder: (_: unknown, args: { input: OrderInput }, ctx: OrdersContext) => ctx.orders.createOrder(ctx.identity, args.input),
    confirmOrder: (_: unknown, args: { uuid: string; input?: { shippingMethodCode?: string | null } | null }, ctx: OrdersContext) =>
      ctx.orders.confirmOrder(ctx.identity, args.uuid, args.input),
    amendOrderLines: (_: unknown, args: { uuid: string; input: { orderLines: OrderLineInput[]; strictSkus?: boolean | null } }, ctx: OrdersContext) =>
      ctx.orders.amendOrderLines(ctx.identity, args.uuid, args.input),
    cancelOrder: (_: unknown, args: { uuid: string }, ctx: OrdersContext) => ctx.orders.cancelOrder(ctx.identity, args.uuid),
    enterOrder: (_: unknown, args: { input: OrderInput }, ctx: OrdersContext) => ctx.orders.enterOrder(ctx.identity, args.input),
    importOrders: async (_: unknown, args: { channelId: string; orders: OrderInput[] }, ctx: OrdersContext) => ({
      orders: await ctx.orders.importOrders(ctx.identity, args.channelId, args.orders),
    }),
    saveOrderAsDraft: (_: unknown, args: { uuid: string; reason?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'save-as-draft', { reason: args.reason ?? null }),
    queueOrder: (_: unknown, args: { uuid: string; shippingMethodCode?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'queue', { shippingMethodCode: args.shippingMethodCode ?? null }),
    scheduleOrder: (_: unknown, args: { uuid: string; scheduledAt: string; shippingMethodCode?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'schedule', { scheduledAt: args.scheduledAt, shippingMethodCode: args.shippingMethodCode ?? null }),
    processOrderNow: (_: unknown, args: { uuid: string; shippingMethodCode?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'process-now', { shippingMethodCode: args.shippingMethodCode ?? null }),
    correctShippingDetails: (_: unknown, args: { uuid: string; shippingDetails: ShippingDetailsInput }, ctx: OrdersContext) =>
      ctx.orders.correctShippingDetails(ctx.identity, args.uuid, args.shippingDetails),
    rejectShippingAddress: (_: unknown, args: { uuid: string; reason?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'reject-shipping-address', { reason: args.reason ?? null }),
    markOrderNotSent: (_: unknown, args: { uuid: string; reason?: string | null }, ctx: OrdersContext) =>
      ctx.orders.merchantAction(ctx.identity, args.uuid, 'not-sent', { reason: args.reason ?? null }),
    setFulfillableStatus: (_: unknown, args: { uuid: string; fulfillableStatus: string; reason?: string | null }, ctx: OrdersContext) =>
      ctx.orders.setFulfillableStatus(ctx.identity, args.uuid, args.fulfillableStatus, args.reason),
    recordFulfilmentProgress: (
      _: unknown,
      args: { fulfilmentUuid: string; input: { status: string; trackingDetails?: TrackingDetailInput[] | null; reason?: string | null } },
      ctx: OrdersContext,
    ) => ctx.orders.recordFulfilmentProgress(ctx.identity, args.fulfilmentUuid, args.input),
    addFulfilmentTracking: (_: unknown, args: { fulfilmentUuid: string; trackingDetails: TrackingDetailInput[] }, ctx: OrdersContext) =>
      ctx.orders.addFulfilmentTracking(ctx.identity, args.fulfilmentUuid, args.trackingDetails),
  },
  Order: {
    __resolveReference: (ref: { uuid: string }, ctx: OrdersContext) => ctx.orders.findVisibleOrder(ctx.identity, ref.uuid),
    fulfillableFrom: (o: Order) => iso(o.fulfillableFrom),
    scheduledAt: (o: Order) => isoOrNull(o.scheduledAt),
    confirmedAt: (o: Order) => isoOrNull(o.confirmedAt),
    createdAt: (o: Order) => iso(o.createdAt),
    updatedAt: (o: Order) => iso(o.updatedAt),
    orderLines: (o: Order) => o.lines,
    trackingDetails: (o: Order) => o.fulfilments.flatMap((f) => f.trackingDetails),
    statusHistory: async (o: Order, _: unknown, ctx: OrdersContext) => (await ctx.histories.load(o.uuid)) ?? [],
  },
  OrderLine: {
    product: (l: OrderLine) => ({ sku: l.sku, uuid: l.productUuid }),
    catalogProduct: (l: OrderLine) => (l.productUuid ? { __typename: 'Product', uuid: l.productUuid } : null),
  },
  Fulfilment: {
    createdAt: (f: Fulfilment) => iso(f.createdAt),
    updatedAt: (f: Fulfilment) => iso(f.updatedAt),
  },
  TrackingDetail: {
    courier: (t: TrackingDetail) => t.carrier,
    number: (t: TrackingDetail) => t.trackingNumber,
    url: (t: TrackingDetail) => t.trackingUrl,
    createdAt: (t: TrackingDetail) => iso(t.createdAt),
  },
  OrderStatusChange: {
    at: (c: StatusChange) => iso(c.at),
  },
  Amendment: {
    countdownRestarted: (a: Amendment) => a.countdownRestarted,
  },
};
