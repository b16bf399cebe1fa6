import type { ActiveState, ProductState, ShippingMethodState } from '@pf/platform/events/catalog';

export type { ActiveState } from '@pf/platform/events/catalog';

/** One measure of a product's dimensions. */
export interface Measure {
  measurement: number;
  unit: string;
}

/** The four optional measures; a product with none of them has `dimensions: null`. */
export interface Dimensions {
  weight: Measure | null;
  length: Measure | null;
  width: Measure | null;
  depth: Measure | null;
}

export const DIMENSION_NAMES = ['weight', 'length', 'width', 'depth'] as const;
export type DimensionName = (typeof DIMENSION_NAMES)[number];

/** A product as the use cases see it. */
export interface Product {
  uuid: string;
  teamCode: string;
  sku: string | null;
  name: string;
  description: string | null;
  activeState: ActiveState;
  podEnabled: boolean;
  podApproved: boolean;
  dimensions: Dimensions | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** The fields of a product a merchant sets; what create starts from and update changes. */
export type ProductFields = Pick<Product, 'sku' | 'name' | 'description' | 'activeState' | 'podEnabled' | 'podApproved' | 'dimensions'>;

export type ServiceLevel = 'economy' | 'standard' | 'express';

/** A shipping method of a team; `code` is what an order names at confirmation. */
export interface ShippingMethod {
  teamCode: string;
  code: string;
  name: string;
  carrier: string;
  active: boolean;
  /** ISO 3166-1 alpha-2 destination countries served, upper case and sorted; empty: every country. */
  countryCodes: string[];
  serviceLevel: ServiceLevel;
  tracked: boolean;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
  priority: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export type ShippingMethodFields = Pick<
  ShippingMethod,
  'name' | 'carrier' | 'active' | 'countryCodes' | 'serviceLevel' | 'tracked' | 'minDeliveryDays' | 'maxDeliveryDays' | 'priority'
>;

/** The payload of product events: the product's full state after the change. */
export function productState(p: Product): ProductState {
  return {
    productUuid: p.uuid,
    teamCode: p.teamCode,
    sku: p.sku,
    name: p.name,
    activeState: p.activeState,
    podEnabled: p.podEnabled,
    podApproved: p.podApproved,
    deleted: p.deletedAt !== null,
    version: p.version,
    dimensions: p.dimensions,
  };
}

/** The aggregate id of a shipping method's events. */
export function shippingMethodKey(m: { teamCode: string; code: string }): string {
  return `${m.teamCode}:${m.code}`;
}

/** The payload of `shipping-method.changed`: the method's full state after the change. */
export function shippingMethodState(m: ShippingMethod): ShippingMethodState {
  return {
    teamCode: m.teamCode,
    code: m.code,
    name: m.name,
    carrier: m.carrier,
    active: m.active,
    deleted: m.deletedAt !== null,
    version: m.version,
    countryCodes: m.countryCodes,
    serviceLevel: m.serviceLevel,
    tracked: m.tracked,
    minDeliveryDays: m.minDeliveryDays,
    maxDeliveryDays: m.maxDeliveryDays,
    priority: m.priority,
  };
}
