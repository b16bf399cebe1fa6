import type { EventEnvelope } from '@pf/platform/events/envelope';
import {
  FulfilmentStatusChanged,
  FulfilmentTrackingCreated,
  OrderCreated,
  OrderFulfillableStatusChanged,
  OrderRevised,
  OrderStatusChanged,
  type OrderFacts,
} from '@pf/platform/events/orders';
import { webhookChannelOf } from '../domain/delivery-rules';
import {
  fulfilmentStatusUpdatedPayload,
  fulfilmentTrackingCreatedPayload,
  orderCreatedPayload,
  orderFulfillableStatusUpdatedPayload,
  orderStatusUpdatedPayload,
  type OrderSnapshot,
} from '../domain/notifications';
import { upsertOrderView, type OrderViewRow } from '../repositories/read-models';
import type { WebhooksDeps } from './deps';
import { queueForChannel, type Notification } from './queueing';
import { CONSUMERS, once, type Applied } from './read-models';

/** Timestamps leave in one spelling (`toISOString`), whatever offset the event used. */
const iso = (s: string) => new Date(s).toISOString();

export function snapshotOf(order: OrderFacts): OrderSnapshot {
  return {
    orderUuid: order.orderUuid.toLowerCase(),
    teamCode: order.teamCode,
    channelCode: order.channelCode,
    orderNumber: order.orderNumber,
    status: order.status,
    fulfillableStatus: order.fulfillableStatus,
    createdAt: iso(order.createdAt),
    updatedAt: iso(order.updatedAt),
    confirmedAt: order.confirmedAt === null ? null : iso(order.confirmedAt),
  };
}

function viewOf(order: OrderFacts): OrderViewRow {
  return {
    orderUuid: order.orderUuid.toLowerCase(),
    teamCode: order.teamCode,
    channelId: order.channelId,
    channelCode: order.channelCode,
    origin: order.origin,
    orderNumber: order.orderNumber,
    status: order.status,
    fulfillableStatus: order.fulfillableStatus,
    createdAt: new Date(order.createdAt),
    updatedAt: new Date(order.updatedAt),
    confirmedAt: order.confirmedAt === null ? null : new Date(order.confirmedAt),
  };
}

/** The webhook an order event causes, or null (`order.revised`: an amend or replay sends none). */
export function notificationOf(event: EventEnvelope): { order: OrderFacts; notification: Notification | null } | null {
  if (OrderCreated.is(event)) {
    const { order } = event.payload;
    return { order, notification: { notificationType: 'order-created', orderUuid: order.orderUuid, payload: orderCreatedPayload(snapshotOf(order)) } };
  }
  if (OrderStatusChanged.is(event)) {
    const { order, originalStatus, currentStatus } = event.payload;
    return {
      order,
      notification: { notificationType: 'order-status-updated', orderUuid: order.orderUuid, payload: orderStatusUpdatedPayload(snapshotOf(order), originalStatus, currentStatus) },
    };
  }
  if (OrderFulfillableStatusChanged.is(event)) {
    const { order, originalFulfillableStatus, currentFulfillableStatus } = event.payload;
    return {
      order,
      notification: {
        notificationType: 'order-fulfillable-status-updated',
        orderUuid: order.orderUuid,
        payload: orderFulfillableStatusUpdatedPayload(snapshotOf(order), originalFulfillableStatus, currentFulfillableStatus),
      },
    };
  }
  if (FulfilmentStatusChanged.is(event)) {
    const { order, fulfilmentUuid, originalStatus, currentStatus, skus } = event.payload;
    return {
      order,
      notification: {
        notificationType: 'fulfilment-status-updated',
        orderUuid: order.orderUuid,
        payload: fulfilmentStatusUpdatedPayload(snapshotOf(order), fulfilmentUuid, originalStatus, currentStatus, skus),
      },
    };
  }
  if (FulfilmentTrackingCreated.is(event)) {
    const { order, fulfilmentUuid, trackingDetails } = event.payload;
    return {
      order,
      notification: {
        notificationType: 'fulfilment-tracking-created',
        orderUuid: order.orderUuid,
        payload: fulfilmentTrackingCreatedPayload(snapshotOf(order), fulfilmentUuid, trackingDetails),
      },
    };
  }
  if (OrderRevised.is(event)) return { order: event.payload.order, notification: null };
  return null;
}

/**
 * An order or fulfilment event: the order read model takes the facts it carries, and an order
 * created through the API gets its webhook queued to the channel it was created on (if that
 * channel may get new webhooks). Both in one transaction with the inbox row, so a redelivered
 * event changes nothing and queues nothing.
 */
export async function applyOrderEvent(deps: WebhooksDeps, event: EventEnvelope): Promise<Applied> {
  const effect = notificationOf(event);
  if (!effect) return 'ignored';
  const channelId = webhookChannelOf(effect.order);
  return once(deps, CONSUMERS.orders, event, async (tx) => {
    await upsertOrderView(tx, viewOf(effect.order));
    if (effect.notification && channelId) {
      const notification = { ...effect.notification, orderUuid: effect.order.orderUuid.toLowerCase() };
      await queueForChannel(deps, tx, channelId, () => notification, 'event', event.id);
    }
  });
}
