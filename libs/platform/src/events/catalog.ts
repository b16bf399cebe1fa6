import { z } from 'zod';
import { defineEvent } from './envelope';
import { TOPICS } from './topics';

export const ACTIVE_STATES = ['active', 'inactive', 'pre-order'] as const;
export type ActiveState = (typeof ACTIVE_STATES)[number];

/** One measure of a product's dimensions: a positive measurement and its unit. */
export const measureState = z.object({ measurement: z.number().positive(), unit: z.string() });

/**
 * A product's dimensions: each of the four measures or null (weight in g/kg/oz/lb; length, width
 * and depth in cm/mm/m/in).
 */
export const dimensionsState = z.object({
  weight: measureState.nullable(),
  length: measureState.nullable(),
  width: measureState.nullable(),
  depth: measureState.nullable(),
});
export type DimensionsState = z.infer<typeof dimensionsState>;

/**
 * Full state of a product after the change. Read models (stock, orders) keep the latest state by
 * `version`, which grows by one with every change of the product, so an old or replayed event
 * never overwrites a newer state.
 */
export const productState = z.object({
  productUuid: z.uuid(),
  teamCode: z.string(),
  sku: z.string().max(255).nullable(),
  name: z.string(),
  activeState: z.enum(ACTIVE_STATES),
  podEnabled: z.boolean(),
  podApproved: z.boolean(),
  deleted: z.boolean(),
  version: z.number().int().positive(),
  /** Null when the product has none. Optional for events written before it was added; catalog always sets it. */
  dimensions: dimensionsState.nullable().optional(),
});
export type ProductState = z.infer<typeof productState>;

export const ProductCreated = defineEvent({
  type: 'product.created',
  schemaVersion: 1,
  aggregateType: 'product',
  topic: TOPICS.products,
  payload: productState,
});

/** Any change: name, SKU, active state, print-on-demand flags, dimensions. */
export const ProductUpdated = defineEvent({
  type: 'product.updated',
  schemaVersion: 1,
  aggregateType: 'product',
  topic: TOPICS.products,
  payload: productState,
});

/** Soft deletion: `deleted` is true in the payload. */
export const ProductDeleted = defineEvent({
  type: 'product.deleted',
  schemaVersion: 1,
  aggregateType: 'product',
  topic: TOPICS.products,
  payload: productState,
});

/** Full state of a shipping method after the change (aggregate id: `<teamCode>:<code>`). */
export const shippingMethodState = z.object({
  teamCode: z.string(),
  code: z.string(),
  name: z.string(),
  carrier: z.string(),
  active: z.boolean(),
  deleted: z.boolean(),
  version: z.number().int().positive(),
  // What the confirm step of orders needs to choose and validate a method. Optional for events
  // written before they were added; catalog always sets them.
  /** ISO 3166-1 alpha-2 destination countries served; empty: every country. */
  countryCodes: z.array(z.string().length(2)).optional(),
  serviceLevel: z.enum(['economy', 'standard', 'express']).optional(),
  tracked: z.boolean().optional(),
  /** Estimated delivery time in working days (both null when unknown). */
  minDeliveryDays: z.number().int().nonnegative().nullable().optional(),
  maxDeliveryDays: z.number().int().nonnegative().nullable().optional(),
  /** Preference when an order names no method: the lowest priority serving the destination. */
  priority: z.number().int().optional(),
});
export type ShippingMethodState = z.infer<typeof shippingMethodState>;

export const ShippingMethodChanged = defineEvent({
  type: 'shipping-method.changed',
  schemaVersion: 1,
  aggregateType: 'shipping-method',
  topic: TOPICS.shippingMethods,
  payload: shippingMethodState,
});

export const CATALOG_EVENTS = [ProductCreated, ProductUpdated, ProductDeleted, ShippingMethodChanged];
