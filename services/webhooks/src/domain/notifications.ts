import { createHmac } from 'node:crypto';

/** Every notification type of spec section 6. */
export const NOTIFICATION_TYPES = [
  'order-created',
  'order-status-updated',
  'order-fulfillable-status-updated',
  'fulfilment-status-updated',
  'fulfilment-tracking-created',
  'stock-level-updated',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The order-level types `POST /webhooks/resend` may ask for again (spec section 6, Resend). */
export const RESENDABLE_TYPES = ['order-created', 'order-status-updated', 'order-fulfillable-status-updated'] as const;
export type ResendableType = (typeof RESENDABLE_TYPES)[number];

export function isResendableType(value: string): value is ResendableType {
  return (RESENDABLE_TYPES as readonly string[]).includes(value);
}

/** What an order webhook says about the order: the facts the orders events carry. */
export interface OrderSnapshot {
  orderUuid: string;
  teamCode: string;
  channelCode: string;
  orderNumber: string;
  status: string;
  fulfillableStatus: string;
  /** ISO 8601, as the orders service wrote them. */
  createdAt: string;
  updatedAt: string;
  confirmedAt: string | null;
}

/** A tracking detail as the orders events carry it. */
export interface TrackingFacts {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  methodCode: string | null;
  methodName: string | null;
}

/** One product of a stock-level-updated webhook. */
export interface StockProductLevel {
  sku: string;
  productUuid: string;
  stock: number;
}

/**
 * The products a closing stock window reports: each product of the window with its figure at
 * sending time (`GET /stock-levels`'s) and its SKU now (else as the window last saw it). Left
 * out: a product the figures no longer have (deleted), and one without a SKU — the payload's
 * `sku` is a string (spec section 6) and an integration keys its stock by SKU; `GET
 * /stock-levels` still lists it.
 */
export function windowProductLevels(
  windowProducts: readonly { productUuid: string; sku: string | null }[],
  figures: ReadonlyMap<string, { stock: number; sku?: string | null }>,
): StockProductLevel[] {
  const levels: StockProductLevel[] = [];
  for (const p of windowProducts) {
    const figure = figures.get(p.productUuid);
    if (!figure) continue;
    const sku = figure.sku !== undefined ? figure.sku : p.sku;
    if (sku === null) continue;
    levels.push({ sku, productUuid: p.productUuid, stock: figure.stock });
  }
  return levels;
}

/**
 * The common members of every order and fulfilment webhook, in this order: notificationType,
 * tenantCode (the team), channelCode, orderUuid, orderNumber, message, createdAt, updatedAt,
 * confirmedAt.
 */
function common(type: NotificationType, order: OrderSnapshot, message: string) {
  return {
    notificationType: type,
    tenantCode: order.teamCode,
    channelCode: order.channelCode,
    orderUuid: order.orderUuid,
    orderNumber: order.orderNumber,
    message,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    confirmedAt: order.confirmedAt,
  };
}

/**
 * `order-created` (the spec leaves its own members to us): the common members plus the order's
 * `orderStatus` and `fulfillableStatus` when it was created.
 */
export function orderCreatedPayload(order: OrderSnapshot) {
  return {
    ...common('order-created', order, `Order "${order.orderNumber}" has been created`),
    orderStatus: order.status,
    fulfillableStatus: order.fulfillableStatus,
  };
}

/**
 * The spec's status message template. A resend describes the current state (the original status
 * is null): the template still holds, with nothing between the quotes, so that receivers matching
 * the template read every message of the type.
 */
function statusChangeMessage(order: OrderSnapshot, what: string, original: string | null, current: string): string {
  return `Order "${order.orderNumber}" ${what} has changed from "${original ?? ''}" to "${current}"`;
}

/** `order-status-updated`: `originalOrderStatus` (null in a resend) and `currentOrderStatus`. */
export function orderStatusUpdatedPayload(order: OrderSnapshot, originalOrderStatus: string | null, currentOrderStatus: string) {
  const message = statusChangeMessage(order, 'status', originalOrderStatus, currentOrderStatus);
  return { ...common('order-status-updated', order, message), originalOrderStatus, currentOrderStatus };
}

/**
 * `order-fulfillable-status-updated` (members ours): `originalFulfillableStatus` (null in a
 * resend), `currentFulfillableStatus`, and the order's `orderStatus`.
 */
export function orderFulfillableStatusUpdatedPayload(order: OrderSnapshot, originalFulfillableStatus: string | null, currentFulfillableStatus: string) {
  const message = statusChangeMessage(order, 'fulfillable status', originalFulfillableStatus, currentFulfillableStatus);
  return {
    ...common('order-fulfillable-status-updated', order, message),
    originalFulfillableStatus,
    currentFulfillableStatus,
    orderStatus: order.status,
  };
}

/**
 * `fulfilment-status-updated`: `originalFulfilmentStatus`, `currentFulfilmentStatus`, the order's
 * `orderStatus`, `products` (always an array of SKU strings), plus `fulfilmentUuid` (an additive
 * member: fulfilments are keyed by uuid).
 */
export function fulfilmentStatusUpdatedPayload(
  order: OrderSnapshot,
  fulfilmentUuid: string,
  originalFulfilmentStatus: string,
  currentFulfilmentStatus: string,
  skus: readonly string[],
) {
  return {
    ...common(
      'fulfilment-status-updated',
      order,
      `Fulfilment of order "${order.orderNumber}" status has changed from "${originalFulfilmentStatus}" to "${currentFulfilmentStatus}"`,
    ),
    originalFulfilmentStatus,
    currentFulfilmentStatus,
    orderStatus: order.status,
    products: [...skus],
    fulfilmentUuid,
  };
}

/**
 * A tracking object of a webhook: the recommended keys, the legacy keys with the same values,
 * and the webhook-only `methodCode` (with `methodName`, which clients should prefer).
 */
export function webhookTrackingDetail(t: TrackingFacts) {
  return {
    carrier: t.carrier,
    trackingNumber: t.trackingNumber,
    trackingUrl: t.trackingUrl,
    courier: t.carrier,
    number: t.trackingNumber,
    url: t.trackingUrl,
    methodCode: t.methodCode,
    methodName: t.methodName,
  };
}

/** `fulfilment-tracking-created`: `currentTrackingDetails` (always an array) and `fulfilmentUuid`. */
export function fulfilmentTrackingCreatedPayload(order: OrderSnapshot, fulfilmentUuid: string, tracking: readonly TrackingFacts[]) {
  return {
    ...common('fulfilment-tracking-created', order, `Tracking details have been added to a fulfilment of order "${order.orderNumber}"`),
    currentTrackingDetails: tracking.map(webhookTrackingDetail),
    fulfilmentUuid,
  };
}

/**
 * `stock-level-updated`: no order members; `changedAt` is the time of the latest change in the
 * window, `products` every product changed in it with its figure at sending time.
 */
export function stockLevelUpdatedPayload(input: { teamCode: string; channelCode: string; changedAt: string; products: readonly StockProductLevel[] }) {
  const n = input.products.length;
  return {
    notificationType: 'stock-level-updated' as const,
    tenantCode: input.teamCode,
    channelCode: input.channelCode,
    changedAt: input.changedAt,
    products: input.products.map((p) => ({ sku: p.sku, productUuid: p.productUuid, stock: p.stock })),
    message: n === 1 ? 'The stock level of 1 product has changed' : `Stock levels of ${n} products have changed`,
  };
}

/**
 * The body bytes, serialised once: JSON with every forward slash escaped as `\/` (the contract's
 * wire form; receivers must verify these exact bytes). A `/` can only occur inside JSON strings,
 * where `\/` is a valid escape of it, so the result is the same JSON value.
 */
export function serialiseBody(payload: object): Buffer {
  return Buffer.from(JSON.stringify(payload).replace(/\//g, '\\/'), 'utf8');
}

/** `Signature`: lowercase hex HMAC-SHA256 of the body bytes keyed with the secret string's UTF-8 bytes. */
export function signBody(body: Buffer, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}
