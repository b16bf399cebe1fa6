import { randomUUID } from 'node:crypto';
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
  serialiseBody,
  signBody,
  type OrderSnapshot,
} from '../domain/notifications';
import type { NewDelivery } from '../repositories/deliveries';
import { inTransaction, type Tx } from '../repositories/db';
import { writeOrderEvent } from '../repositories/order-events';
import type { OrderViewRow } from '../repositories/read-models';
import type { WebhooksDeps } from './deps';
import type { Notification } from './queueing';
import { CONSUMERS, type Applied } from './read-models';

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
 * A run of order and fulfilment events (the bus hands them over as they are available), applied
 * in ONE transaction, one statement per event: the order read model takes the facts each carries,
 * and an order created through the API gets its webhook queued to the channel it was created on
 * (if that channel may get new webhooks), serialised and signed once, here. Inbox row, read model
 * and delivery are written together, so a redelivered event changes nothing and queues nothing.
 * One commit per run, not per event: the consumer sees one event stream, so the cost of a commit
 * would otherwise bound its rate.
 */
export async function applyOrderEvents(deps: WebhooksDeps, events: readonly EventEnvelope[]): Promise<Applied[]> {
  let queued = false;
  const outcomes = await inTransaction(deps.pool, async (tx) => {
    const applied: Applied[] = [];
    for (const event of events) {
      const outcome = await applyOne(deps, tx, event);
      if (outcome.queued) queued = true;
      applied.push(outcome.applied);
    }
    return applied;
  });
  // Only now are the deliveries visible to the worker.
  if (queued) deps.onQueued?.();
  return outcomes;
}

/** One event (see applyOrderEvents). */
export async function applyOrderEvent(deps: WebhooksDeps, event: EventEnvelope): Promise<Applied> {
  return (await applyOrderEvents(deps, [event]))[0]!;
}

async function applyOne(deps: WebhooksDeps, tx: Tx, event: EventEnvelope): Promise<{ applied: Applied; queued: boolean }> {
  const effect = notificationOf(event);
  if (!effect) return { applied: 'ignored', queued: false };
  const channelId = effect.notification ? webhookChannelOf(effect.order) : null;
  for (let round = 1; ; round++) {
    const endpoint = channelId ? await deps.endpoints.get(channelId) : null;
    const delivery: NewDelivery | null =
      channelId && endpoint?.secret && effect.notification
        ? signedDelivery(channelId, effect.order.teamCode, endpoint.secretVersion!, endpoint.secret, effect.notification, event.id)
        : null;
    const written = await writeOrderEvent(tx, {
      consumer: CONSUMERS.orders,
      eventId: event.id,
      order: viewOf(effect.order),
      channelId,
      delivery,
      signedWithVersion: endpoint?.secretVersion ?? null,
    });
    if (written.upToDate) return { applied: written.applied ? 'applied' : 'duplicate', queued: written.deliveryId !== null };
    // The registration changed since it was cached (rotated, registered): read it again, sign again.
    deps.endpoints.invalidate(channelId!);
    if (round >= 5) throw new Error(`The webhook registration of ${channelId} keeps changing; the events are retried later`);
  }
}

function signedDelivery(channelId: string, teamCode: string, secretVersion: number, secret: string, n: Notification, eventId: string): NewDelivery {
  const body = serialiseBody(n.payload);
  return {
    id: randomUUID(),
    channelId,
    teamCode,
    notificationType: n.notificationType,
    orderUuid: n.orderUuid?.toLowerCase() ?? null,
    origin: 'event',
    sourceEventId: eventId,
    redeliveryOf: null,
    body,
    signature: signBody(body, secret),
    secretVersion,
  };
}
