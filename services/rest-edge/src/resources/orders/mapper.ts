import type {
  AmendmentFields,
  CreateOrderInput,
  FulfilmentFields,
  OrderFields,
  OrderLineInput,
  ShippingDetailsFields,
  ShippingDetailsInput,
  TrackingDetailFields,
} from './operation';

/**
 * The order resource (OpenAPI `Order`): every member on every body, in contract order. Built
 * member by member so nothing the subgraph adds (and no `methodCode`) leaks into the contract.
 */
export function toOrderResource(o: OrderFields) {
  return {
    uuid: o.uuid,
    // The name paths, webhooks and replay problems use for the same identifier.
    orderUuid: o.uuid,
    orderNumber: o.orderNumber,
    printTrailOrderNumber: o.printTrailOrderNumber,
    status: o.status,
    fulfillableStatus: o.fulfillableStatus,
    fulfillableFrom: o.fulfillableFrom,
    scheduledAt: o.scheduledAt ?? null,
    confirmedAt: o.confirmedAt ?? null,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    stockHeld: o.stockHeld,
    shippingDetails: toShippingDetails(o.shippingDetails),
    orderLines: o.orderLines.map((l) => ({
      lineNumber: l.lineNumber,
      product: { sku: l.product.sku, uuid: l.product.uuid ?? null },
      quantity: l.quantity,
    })),
    fulfilments: [...o.fulfilments].sort(byCreationThenLocation).map(toFulfilment),
    trackingDetails: o.trackingDetails.map(toTrackingDetail),
  };
}

export type OrderResource = ReturnType<typeof toOrderResource>;

/** Always an object with every member, null where the order has none (the subgraph answers null for none at all). */
function toShippingDetails(s: ShippingDetailsFields | null) {
  return {
    firstName: s?.firstName ?? null,
    lastName: s?.lastName ?? null,
    companyName: s?.companyName ?? null,
    address1: s?.address1 ?? null,
    address2: s?.address2 ?? null,
    address3: s?.address3 ?? null,
    address4: s?.address4 ?? null,
    city: s?.city ?? null,
    postalCode: s?.postalCode ?? null,
    state: { name: s?.state?.name ?? null, code: s?.state?.code ?? null },
    country: { name: s?.country?.name ?? null, code: s?.country?.code ?? null },
    email: s?.email ?? null,
    phone: s?.phone ?? null,
  };
}

/** A stable order for the contract: by creation, then supplier location code (one build shares its creation time), then uuid. */
function byCreationThenLocation(a: FulfilmentFields, b: FulfilmentFields): number {
  return a.createdAt.localeCompare(b.createdAt) || a.supplierLocation.code.localeCompare(b.supplierLocation.code) || a.uuid.localeCompare(b.uuid);
}

function toFulfilment(f: FulfilmentFields) {
  return {
    uuid: f.uuid,
    status: f.status,
    supplierLocation: { code: f.supplierLocation.code, countryCode: f.supplierLocation.countryCode },
    shippingMethod: f.shippingMethod ? { code: f.shippingMethod.code, name: f.shippingMethod.name } : null,
    lines: f.lines.map((l) => ({ lineNumber: l.lineNumber, sku: l.sku, quantity: l.quantity })),
    trackingDetails: f.trackingDetails.map(toTrackingDetail),
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

/** Recommended and legacy keys with the same values (spec section 2); never `methodCode`. */
function toTrackingDetail(t: TrackingDetailFields) {
  return {
    carrier: t.carrier,
    trackingNumber: t.trackingNumber,
    trackingUrl: t.trackingUrl,
    courier: t.courier ?? t.carrier,
    number: t.number ?? t.trackingNumber,
    url: t.url ?? t.trackingUrl,
    methodName: t.methodName,
    fulfilmentUuid: t.fulfilmentUuid,
    createdAt: t.createdAt,
  };
}

/** The `amendment` member of `PUT /orders/{orderUuid}/lines` (OpenAPI `Amendment`). */
export function toAmendment(a: AmendmentFields) {
  const line = (l: AmendmentFields['addedLines'][number]) => ({
    lineNumber: l.lineNumber,
    sku: l.sku,
    previousSku: l.previousSku ?? null,
    quantityBefore: l.quantityBefore ?? null,
    quantityAfter: l.quantityAfter ?? null,
  });
  return {
    addedLines: a.addedLines.map(line),
    removedLines: a.removedLines.map(line),
    changedLines: a.changedLines.map(line),
    unchangedLineNumbers: [...a.unchangedLineNumbers],
    replacedFulfilments: a.replacedFulfilments.map((r) => ({
      supplierLocation: { code: r.supplierLocation.code, countryCode: r.supplierLocation.countryCode },
      previousUuid: r.previousUuid ?? null,
      newUuid: r.newUuid ?? null,
    })),
    countdownRestarted: a.countdownRestarted,
  };
}

/** A request line as the OpenAPI document lets it through (`OrderLineInput`). */
interface OrderLineBody {
  lineNumber?: number;
  product: { sku: string };
  quantity: number;
}

/** `CreateOrderRequest`, validated; unknown members may be present. */
export interface CreateOrderBody {
  orderNumber: string;
  printTrailOrderNumber?: string;
  orderLines: OrderLineBody[];
  shippingDetails?: Record<string, unknown>;
  scheduledAt?: string;
  strictSkus?: boolean;
  reserve?: boolean;
}

/** `AmendOrderLinesRequest`, validated. */
export interface AmendOrderLinesBody {
  orderLines: OrderLineBody[];
  strictSkus?: boolean;
}

/**
 * The GraphQL input of `createOrder`. Only the members the document describes are copied: a
 * client's unknown members (which it may send, spec section 9) would fail the GraphQL input type.
 */
export function toCreateOrderInput(body: CreateOrderBody): CreateOrderInput {
  return {
    orderNumber: body.orderNumber,
    ...(body.printTrailOrderNumber !== undefined ? { printTrailOrderNumber: body.printTrailOrderNumber } : {}),
    orderLines: body.orderLines.map(toOrderLineInput),
    ...(body.shippingDetails !== undefined ? { shippingDetails: toShippingDetailsInput(body.shippingDetails) } : {}),
    ...(body.scheduledAt !== undefined ? { scheduledAt: body.scheduledAt } : {}),
    ...(body.strictSkus !== undefined ? { strictSkus: body.strictSkus } : {}),
    ...(body.reserve !== undefined ? { reserve: body.reserve } : {}),
  };
}

export function toAmendOrderLinesInput(body: AmendOrderLinesBody): { orderLines: OrderLineInput[]; strictSkus?: boolean } {
  return {
    orderLines: body.orderLines.map(toOrderLineInput),
    ...(body.strictSkus !== undefined ? { strictSkus: body.strictSkus } : {}),
  };
}

function toOrderLineInput(l: OrderLineBody): OrderLineInput {
  return {
    ...(l.lineNumber !== undefined ? { lineNumber: l.lineNumber } : {}),
    product: { sku: l.product.sku },
    quantity: l.quantity,
  };
}

const SHIPPING_TEXT_MEMBERS = [
  'firstName',
  'lastName',
  'companyName',
  'address1',
  'address2',
  'address3',
  'address4',
  'city',
  'postalCode',
  'email',
  'phone',
] as const;

function toShippingDetailsInput(s: Record<string, unknown>): ShippingDetailsInput {
  const out: ShippingDetailsInput = {};
  for (const k of SHIPPING_TEXT_MEMBERS) if (typeof s[k] === 'string') out[k] = s[k];
  const pair = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return undefined;
    const o = v as Record<string, unknown>;
    return {
      ...(typeof o.name === 'string' ? { name: o.name } : {}),
      ...(typeof o.code === 'string' ? { code: o.code } : {}),
    };
  };
  const state = pair(s.state);
  const country = pair(s.country);
  if (state) out.state = state;
  if (country) out.country = country;
  return out;
}
