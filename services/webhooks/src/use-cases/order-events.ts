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
import { writeOrderEvents, type OrderEventWrite } from '../repositories/order-events';
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
 * in ONE statement: the order read model takes the facts each carries, and an order created
 * through the API gets its webhook queued to the channel it was created on (if that channel may
 * get new webhooks), serialised and signed once, here. Inbox row, read model and delivery are
 * written together, so a redelivered event changes nothing and queues nothing. One round trip per
 * run, not per event: the consumer sees one event stream, so per-event round trips (and commits)
 * would bound its rate, and on a busy machine every round trip waits for a core.
 *
 * Events whose channel's registration changed since the cache read it (rotated, registered) are
 * written by nothing; they are signed again with the registration read afresh and written by the
 * next statement. A run that fails is retried whole by the bus; the inbox skips what was written.
 */
export async function applyOrderEvents(deps: WebhooksDeps, events: readonly EventEnvelope[]): Promise<Applied[]> {
  const outcomes: Applied[] = events.map(() => 'ignored');
  let pending = events.flatMap((event, index) => {
    const effect = notificationOf(event);
    return effect ? [{ index, event, effect, channelId: effect.notification ? webhookChannelOf(effect.order) : null }] : [];
  });
  for (let round = 1; pending.length > 0; round++) {
    // Each channel's registration once (a run is mostly one channel's events), then sign.
    const channels = [...new Set(pending.flatMap((p) => (p.channelId ? [p.channelId] : [])))];
    const endpoints = new Map(await Promise.all(channels.map(async (c) => [c, await deps.endpoints.get(c)] as const)));
    const writes = pending.map(({ event, effect, channelId }): OrderEventWrite => {
      const endpoint = channelId ? endpoints.get(channelId) : undefined;
      const delivery =
        channelId && endpoint?.secret && effect.notification
          ? signedDelivery(channelId, effect.order.teamCode, endpoint.secretVersion!, endpoint.secret, effect.notification, event.id)
          : null;
      return { eventId: event.id, order: viewOf(effect.order), channelId, delivery, signedWithVersion: endpoint?.secretVersion ?? null };
    });
    const written = await writeOrderEvents(deps.pool, CONSUMERS.orders, writes);
    const stale: typeof pending = [];
    let queued = false;
    written.forEach((w, i) => {
      const item = pending[i]!;
      if (!w.upToDate) {
        stale.push(item);
        return;
      }
      outcomes[item.index] = w.applied ? 'applied' : 'duplicate';
      if (w.deliveryId !== null) queued = true;
    });
    // Only now are the deliveries visible to the worker.
    if (queued) deps.onQueued?.();
    if (stale.length === 0) break;
    // The registration changed since it was cached (rotated, registered): read it again, sign again.
    for (const channelId of new Set(stale.map((s) => s.channelId!))) deps.endpoints.invalidate(channelId);
    if (round >= 5) throw new Error(`The webhook registration of ${stale[0]!.channelId} keeps changing; the events are retried later`);
    pending = stale;
  }
  return outcomes;
}

/** One event (see applyOrderEvents). */
export async function applyOrderEvent(deps: WebhooksDeps, event: EventEnvelope): Promise<Applied> {
  return (await applyOrderEvents(deps, [event]))[0]!;
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
