import { z } from 'zod';
import { defineEvent } from './envelope';
import { TOPICS } from './topics';

/** Where an order came from (rule O1: only `api` orders are visible to, and webhooked to, their channel). */
export const ORDER_ORIGINS = ['api', 'merchant-app', 'import'] as const;
export type OrderOrigin = (typeof ORDER_ORIGINS)[number];

/**
 * The order facts every order and fulfilment event carries: enough for the webhooks service to
 * build the common payload members of spec section 6 (tenantCode, channelCode, orderUuid,
 * orderNumber, createdAt, updatedAt, confirmedAt) and to apply rule W2 / O1 scoping (origin).
 */
export const orderFacts = z.object({
  orderUuid: z.uuid(),
  teamCode: z.string(),
  /** The channel the order is filed under (for `api` orders: the channel it was created on). */
  channelId: z.string(),
  channelCode: z.string(),
  origin: z.enum(ORDER_ORIGINS),
  orderNumber: z.string(),
  status: z.string(),
  fulfillableStatus: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  confirmedAt: z.iso.datetime({ offset: true }).nullable(),
});
export type OrderFacts = z.infer<typeof orderFacts>;

/** A tracking detail as webhooks carry it: recommended and legacy keys, plus methodCode/methodName. */
export const trackingDetail = z.object({
  carrier: z.string().nullable(),
  trackingNumber: z.string().nullable(),
  trackingUrl: z.string().nullable(),
  methodCode: z.string().nullable(),
  methodName: z.string().nullable(),
});
export type TrackingDetailFacts = z.infer<typeof trackingDetail>;

/** An order was created (through `POST /orders`, the merchant application or an import). */
export const OrderCreated = defineEvent({
  type: 'order.created',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({ order: orderFacts }),
});

/** The order's status changed. */
export const OrderStatusChanged = defineEvent({
  type: 'order.status-changed',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({ order: orderFacts, originalStatus: z.string(), currentStatus: z.string() }),
});

/** The order's fulfillableStatus changed (for example to `not-fulfillable`). */
export const OrderFulfillableStatusChanged = defineEvent({
  type: 'order.fulfillable-status-changed',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({
    order: orderFacts,
    originalFulfillableStatus: z.string(),
    currentFulfillableStatus: z.string(),
  }),
});

/**
 * The order was replaced by a `POST /orders` replay or its lines amended (rule O5). Carries no
 * webhook (spec: an amend sends none); for read models only.
 */
export const OrderRevised = defineEvent({
  type: 'order.revised',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({ order: orderFacts, reason: z.enum(['replaced', 'amended']) }),
});

/** A fulfilment's status changed. `skus` is always an array. */
export const FulfilmentStatusChanged = defineEvent({
  type: 'fulfilment.status-changed',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({
    order: orderFacts,
    fulfilmentUuid: z.uuid(),
    originalStatus: z.string(),
    currentStatus: z.string(),
    skus: z.array(z.string()),
  }),
});

/** Tracking details were added to a fulfilment. `trackingDetails` is always an array. */
export const FulfilmentTrackingCreated = defineEvent({
  type: 'fulfilment.tracking-created',
  schemaVersion: 1,
  aggregateType: 'order',
  topic: TOPICS.orders,
  payload: z.object({
    order: orderFacts,
    fulfilmentUuid: z.uuid(),
    trackingDetails: z.array(trackingDetail),
  }),
});

export const ORDER_EVENTS = [
  OrderCreated,
  OrderStatusChanged,
  OrderFulfillableStatusChanged,
  OrderRevised,
  FulfilmentStatusChanged,
  FulfilmentTrackingCreated,
];
