import { defineOperation } from '../../upstream/graphql';

/** An order as the orders subgraph returns it to a channel identity (rule O1 applied there). */
export interface OrderFields {
  uuid: string;
  orderNumber: string;
  printTrailOrderNumber: string;
  status: string;
  fulfillableStatus: string;
  fulfillableFrom: string;
  scheduledAt: string | null;
  confirmedAt: string | null;
  createdAt: string;
  updatedAt: string;
  stockHeld: boolean;
  shippingDetails: ShippingDetailsFields | null;
  orderLines: { lineNumber: number; product: { sku: string; uuid: string | null }; quantity: number }[];
  fulfilments: FulfilmentFields[];
  trackingDetails: TrackingDetailFields[];
}

export interface ShippingDetailsFields {
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  address1: string | null;
  address2: string | null;
  address3: string | null;
  address4: string | null;
  city: string | null;
  postalCode: string | null;
  state: { name: string | null; code: string | null } | null;
  country: { name: string | null; code: string | null } | null;
  email: string | null;
  phone: string | null;
}

export interface FulfilmentFields {
  uuid: string;
  status: string;
  supplierLocation: { code: string; countryCode: string };
  shippingMethod: { code: string; name: string } | null;
  lines: { lineNumber: number; sku: string; quantity: number }[];
  trackingDetails: TrackingDetailFields[];
  createdAt: string;
  updatedAt: string;
}

/** Without `methodCode`: the REST order resource never carries it (spec section 2), so it is not even asked for. */
export interface TrackingDetailFields {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  courier: string | null;
  number: string | null;
  url: string | null;
  methodName: string | null;
  fulfilmentUuid: string;
  createdAt: string;
}

export interface AmendedLineFields {
  lineNumber: number;
  sku: string;
  previousSku: string | null;
  quantityBefore: number | null;
  quantityAfter: number | null;
}

export interface AmendmentFields {
  addedLines: AmendedLineFields[];
  removedLines: AmendedLineFields[];
  changedLines: AmendedLineFields[];
  unchangedLineNumbers: number[];
  replacedFulfilments: { supplierLocation: { code: string; countryCode: string }; previousUuid: string | null; newUuid: string | null }[];
  countdownRestarted: boolean;
}

export interface OrderPageFields {
  items: OrderFields[];
  page: number;
  perPage: number;
  total: number;
  lastPage: number;
  from: number | null;
  to: number | null;
}

/** GraphQL inputs, as the orders subgraph's SDL names them. */
export interface OrderLineInput {
  lineNumber?: number;
  product: { sku: string };
  quantity: number;
}

export interface ShippingDetailsInput {
  firstName?: string;
  lastName?: string;
  companyName?: string;
  address1?: string;
  address2?: string;
  address3?: string;
  address4?: string;
  city?: string;
  postalCode?: string;
  state?: { name?: string; code?: string };
  country?: { name?: string; code?: string };
  email?: string;
  phone?: string;
}

export interface CreateOrderInput {
  orderNumber: string;
  printTrailOrderNumber?: string;
  orderLines: OrderLineInput[];
  shippingDetails?: ShippingDetailsInput;
  scheduledAt?: string;
  strictSkus?: boolean;
  reserve?: boolean;
}

export interface OrderFilterInput {
  status?: string[];
  orderNumber?: string;
  updatedSince?: string;
  createdSince?: string;
  updatedAfter?: { updatedAt: string; uuid: string };
}

export type OrderSort = 'CREATED_DESC' | 'UPDATED_ASC';

const TRACKING_DETAIL = 'carrier trackingNumber trackingUrl courier number url methodName fulfilmentUuid createdAt';

/** The selection of every operation returning an order: each member of the REST order resource. */
const ORDER = `
  fragment EdgeOrder on Order {
    uuid orderNumber printTrailOrderNumber status fulfillableStatus fulfillableFrom scheduledAt confirmedAt
    createdAt updatedAt stockHeld
    shippingDetails {
      firstName lastName companyName address1 address2 address3 address4 city postalCode
      state { name code } country { name code } email phone
    }
    orderLines { lineNumber product { sku uuid } quantity }
    fulfilments {
      uuid status supplierLocation { code countryCode } shippingMethod { code name }
      lines { lineNumber sku quantity } trackingDetails { ${TRACKING_DETAIL} } createdAt updatedAt
    }
    trackingDetails { ${TRACKING_DETAIL} }
  }
`;

/** `POST /orders`: create, or replace a draft (rule O2, decided by the orders service). */
export const EDGE_CREATE_ORDER = defineOperation<{ input: CreateOrderInput }, { createOrder: OrderFields }>(`
  mutation EdgeCreateOrder($input: CreateOrderInput!) { createOrder(input: $input) { ...EdgeOrder } }
  ${ORDER}
`);

/** `GET /orders/{orderUuid}`. */
export const EDGE_ORDER = defineOperation<{ uuid: string }, { order: OrderFields | null }>(`
  query EdgeOrder($uuid: ID!) { order(uuid: $uuid) { ...EdgeOrder } }
  ${ORDER}
`);

/** The read that fills `data` of a replay 409, with the order's version to tell whether it changed since the 409 was decided. */
export const EDGE_REPLAYED_ORDER = defineOperation<{ uuid: string }, { order: (OrderFields & { version: number }) | null }>(`
  query EdgeReplayedOrder($uuid: ID!) { order(uuid: $uuid) { ...EdgeOrder version } }
  ${ORDER}
`);

/** `GET /orders`. */
export const EDGE_ORDERS = defineOperation<
  { filter: OrderFilterInput; page: number; perPage: number; sort: OrderSort },
  { orders: OrderPageFields }
>(`
  query EdgeOrders($filter: OrderFilter, $page: Int, $perPage: Int, $sort: OrderSort) {
    orders(filter: $filter, page: $page, perPage: $perPage, sort: $sort) {
      items { ...EdgeOrder } page perPage total lastPage from to
    }
  }
  ${ORDER}
`);

/** `PUT /orders/{orderUuid}/confirm`. */
export const EDGE_CONFIRM_ORDER = defineOperation<{ uuid: string; input: { shippingMethodCode?: string } }, { confirmOrder: OrderFields }>(`
  mutation EdgeConfirmOrder($uuid: ID!, $input: ConfirmOrderInput) { confirmOrder(uuid: $uuid, input: $input) { ...EdgeOrder } }
  ${ORDER}
`);

/** `PUT /orders/{orderUuid}/lines` (rule O5). */
export const EDGE_AMEND_ORDER_LINES = defineOperation<
  { uuid: string; input: { orderLines: OrderLineInput[]; strictSkus?: boolean } },
  { amendOrderLines: { order: OrderFields; amendment: AmendmentFields } }
>(`
  mutation EdgeAmendOrderLines($uuid: ID!, $input: AmendOrderLinesInput!) {
    amendOrderLines(uuid: $uuid, input: $input) {
      order { ...EdgeOrder }
      amendment {
        addedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        removedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        changedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        unchangedLineNumbers
        replacedFulfilments { supplierLocation { code countryCode } previousUuid newUuid }
        countdownRestarted
      }
    }
  }
  ${ORDER}
`);

/** `PUT /orders/{orderUuid}/cancel` and `DELETE /orders/{orderUuid}`. */
export const EDGE_CANCEL_ORDER = defineOperation<{ uuid: string }, { cancelOrder: OrderFields }>(`
  mutation EdgeCancelOrder($uuid: ID!) { cancelOrder(uuid: $uuid) { ...EdgeOrder } }
  ${ORDER}
`);
