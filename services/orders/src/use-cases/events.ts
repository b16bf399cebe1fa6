import type { OutgoingEvent } from '@pf/platform/bus/bus';
import {
  FulfilmentStatusChanged,
  FulfilmentTrackingCreated,
  OrderCreated,
  OrderFulfillableStatusChanged,
  OrderRevised,
  OrderStatusChanged,
  type OrderFacts,
} from '@pf/platform/events/orders';
import { newEvent } from '@pf/platform/outbox/outbox';
import type { Fulfilment, Order, TrackingDetail } from '../domain/model';

/** The facts every order event carries (webhook payload members and O1/W2 scoping). */
export function orderFacts(o: Order): OrderFacts {
  return {
    orderUuid: o.uuid,
    teamCode: o.teamCode,
    channelId: o.channelId,
    // A channel id is `<teamCode>-<channelCode>`.
    channelCode: o.channelId.startsWith(`${o.teamCode}-`) ? o.channelId.slice(o.teamCode.length + 1) : o.channelId,
    origin: o.origin,
    orderNumber: o.orderNumber,
    status: o.status,
    fulfillableStatus: o.fulfillableStatus,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    confirmedAt: o.confirmedAt ? o.confirmedAt.toISOString() : null,
  };
}

/** Every event of an order is keyed by its uuid, so they stay in order on the bus. */
export const orderEvents = {
  created: (o: Order): OutgoingEvent => newEvent(OrderCreated, o.uuid, { order: orderFacts(o) }),
  statusChanged: (o: Order, from: string, to: string): OutgoingEvent =>
    newEvent(OrderStatusChanged, o.uuid, { order: orderFacts(o), originalStatus: from, currentStatus: to }),
  fulfillableStatusChanged: (o: Order, from: string, to: string): OutgoingEvent =>
    newEvent(OrderFulfillableStatusChanged, o.uuid, { order: orderFacts(o), originalFulfillableStatus: from, currentFulfillableStatus: to }),
  revised: (o: Order, reason: 'replaced' | 'amended'): OutgoingEvent => newEvent(OrderRevised, o.uuid, { order: orderFacts(o), reason }),
  fulfilmentStatusChanged: (o: Order, f: Pick<Fulfilment, 'uuid' | 'lines'>, from: string, to: string): OutgoingEvent =>
    newEvent(FulfilmentStatusChanged, o.uuid, {
      order: orderFacts(o),
      fulfilmentUuid: f.uuid,
      originalStatus: from,
      currentStatus: to,
      skus: [...new Set(f.lines.map((l) => l.sku))],
    }),
  trackingCreated: (o: Order, fulfilmentUuid: string, details: readonly Omit<TrackingDetail, 'fulfilmentUuid' | 'createdAt'>[]): OutgoingEvent =>
    newEvent(FulfilmentTrackingCreated, o.uuid, {
      order: orderFacts(o),
      fulfilmentUuid,
      trackingDetails: details.map((d) => ({
        carrier: d.carrier,
        trackingNumber: d.trackingNumber,
        trackingUrl: d.trackingUrl,
        methodCode: d.methodCode,
        methodName: d.methodName,
      })),
    }),
};
