import type { ShippingMethodFields } from './operation';

/** The shipping method resource (OpenAPI `ShippingMethod`). */
export function toShippingMethod(m: ShippingMethodFields) {
  return {
    code: m.code,
    name: m.name,
    carrier: m.carrier,
    serviceLevel: m.serviceLevel,
    tracked: m.tracked,
    countryCodes: m.countryCodes,
    minDeliveryDays: m.minDeliveryDays,
    maxDeliveryDays: m.maxDeliveryDays,
  };
}
