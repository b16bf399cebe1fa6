import type { EventEnvelope } from '@pf/platform/events/envelope';
import type { Identity } from '@pf/platform/identity';
import type { OrderInput, OrderLineInput, ShippingDetailsInput } from '../domain/order-input';
import { amendOrderLines } from './amend-order';
import { cancelOrder, confirmOrder, correctShippingDetails, merchantAction, setFulfillableStatus, type MerchantAction } from './change-order';
import { createOrder, enterOrder, importOrders } from './create-order';
import type { OrdersDeps } from './deps';
import type { TrackingDetailInput } from '../domain/tracking';
import { addFulfilmentTracking, recordFulfilmentProgress } from './fulfilment-progress';
import { findVisibleOrder, getOrder, listOrders, statusHistories, type OrderFilter, type OrderSort } from './read-orders';
import { applyReadModelEvent } from './read-models';

export type { OrdersDeps } from './deps';
export type { AmendmentResult, Amendment } from './amend-order';
export type { OrderFilter, OrderPage, OrderSort } from './read-orders';
export type { MerchantAction } from './change-order';
export type { TrackingDetailInput } from '../domain/tracking';

/** The orders use cases bound to their dependencies; what resolvers, consumers and workers call. */
export class OrdersUseCases {
  constructor(readonly deps: OrdersDeps) {}

  createOrder(identity: Identity, input: OrderInput) {
    return createOrder(this.deps, identity, input);
  }
  confirmOrder(identity: Identity, uuid: string, input?: { shippingMethodCode?: string | null } | null) {
    return confirmOrder(this.deps, identity, uuid, input ?? {});
  }
  amendOrderLines(identity: Identity, uuid: string, input: { orderLines: OrderLineInput[]; strictSkus?: boolean | null }) {
    return amendOrderLines(this.deps, identity, uuid, input);
  }
  cancelOrder(identity: Identity, uuid: string) {
    return cancelOrder(this.deps, identity, uuid);
  }
  enterOrder(identity: Identity, input: OrderInput) {
    return enterOrder(this.deps, identity, input);
  }
  importOrders(identity: Identity, channelId: string, orders: OrderInput[]) {
    return importOrders(this.deps, identity, channelId, orders);
  }
  correctShippingDetails(identity: Identity, uuid: string, shippingDetails: ShippingDetailsInput) {
    return correctShippingDetails(this.deps, identity, uuid, shippingDetails);
  }
  merchantAction(identity: Identity, uuid: string, action: MerchantAction, opts?: { reason?: string | null; shippingMethodCode?: string | null; scheduledAt?: string | null }) {
    return merchantAction(this.deps, identity, uuid, action, opts);
  }
  setFulfillableStatus(identity: Identity, uuid: string, value: string, reason?: string | null) {
    return setFulfillableStatus(this.deps, identity, uuid, value, reason);
  }
  recordFulfilmentProgress(identity: Identity, fulfilmentUuid: string, input: { status: string; trackingDetails?: TrackingDetailInput[] | null; reason?: string | null }) {
    return recordFulfilmentProgress(this.deps, identity, fulfilmentUuid, input);
  }
  addFulfilmentTracking(identity: Identity, fulfilmentUuid: string, details: TrackingDetailInput[]) {
    return addFulfilmentTracking(this.deps, identity, fulfilmentUuid, details);
  }
  getOrder(identity: Identity, uuid: string) {
    return getOrder(this.deps, identity, uuid);
  }
  findVisibleOrder(identity: Identity, uuid: string) {
    return findVisibleOrder(this.deps, identity, uuid);
  }
  listOrders(identity: Identity, args: { filter?: OrderFilter | null; page?: number | null; perPage?: number | null; sort?: OrderSort | null }) {
    return listOrders(this.deps, identity, args);
  }
  statusHistories(orderUuids: readonly string[]) {
    return statusHistories(this.deps, orderUuids);
  }
  applyReadModelEvent(event: EventEnvelope) {
    return applyReadModelEvent(this.deps, event);
  }
}
