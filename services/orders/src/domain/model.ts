import type { OrderOrigin } from '@pf/platform/events/orders';
import type { ShippingDetails } from './order-input';
import type { FulfillableStatus, FulfilmentStatus, OrderStatus } from './order-state-machine';

export type { OrderOrigin };

export interface OrderLine {
  lineNumber: number;
  sku: string;
  quantity: number;
  /** The team's product with this SKU when the line was written; null when none matched. */
  productUuid: string | null;
}

export interface SupplierLocation {
  code: string;
  countryCode: string;
}

export interface ShippingMethodChoice {
  code: string;
  name: string;
}

export interface TrackingDetail {
  fulfilmentUuid: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  methodCode: string | null;
  methodName: string | null;
  createdAt: Date;
}

export interface FulfilmentLine {
  lineNumber: number;
  sku: string;
  quantity: number;
}

export interface Fulfilment {
  uuid: string;
  status: FulfilmentStatus;
  supplierLocation: SupplierLocation;
  shippingMethod: ShippingMethodChoice | null;
  lines: FulfilmentLine[];
  trackingDetails: TrackingDetail[];
  createdAt: Date;
  updatedAt: Date;
}

/** An order as the use cases and resolvers see it. */
export interface Order {
  uuid: string;
  teamCode: string;
  channelId: string;
  origin: OrderOrigin;
  orderNumber: string;
  printTrailOrderNumber: string;
  status: OrderStatus;
  fulfillableStatus: FulfillableStatus;
  fulfillableFrom: Date;
  scheduledAt: Date | null;
  confirmedAt: Date | null;
  stockHeld: boolean;
  shippingMethod: ShippingMethodChoice | null;
  shippingDetails: ShippingDetails | null;
  lines: OrderLine[];
  fulfilments: Fulfilment[];
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

export interface StatusChange {
  from: OrderStatus | null;
  to: OrderStatus;
  at: Date;
  actor: string;
  trigger: string | null;
  reason: string | null;
}

/** A read-model shipping method. */
export interface ShippingMethodFacts {
  teamCode: string;
  code: string;
  name: string;
  active: boolean;
  deleted: boolean;
  countryCodes: string[];
  priority: number;
}
