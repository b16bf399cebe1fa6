import type { Fulfilment, ShippingMethodChoice, TrackingDetail } from './model';

/** A tracking detail as recorded, before it belongs to a fulfilment. */
export type NewTracking = Omit<TrackingDetail, 'fulfilmentUuid' | 'createdAt'>;

/**
 * Tracking details as the fulfilment keeps them: a detail that names no shipping method is the
 * fulfilment's own (the one chosen at confirmation), so `methodCode` — the service's shipping
 * method code, which webhooks carry (spec sections 2 and 6) — is there whenever it is known. A
 * detail that names one keeps it (the supplier may have shipped another way).
 */
export function withShippingMethod(details: readonly NewTracking[], method: ShippingMethodChoice | null): NewTracking[] {
  return details.map((d) =>
    d.methodCode === null && d.methodName === null && method ? { ...d, methodCode: method.code, methodName: method.name } : { ...d },
  );
}

/** The fulfilment with `details` added, each stamped with the fulfilment and the time. */
export function withTrackingAdded(fulfilment: Fulfilment, details: readonly NewTracking[], now: Date): Fulfilment {
  return { ...fulfilment, trackingDetails: [...fulfilment.trackingDetails, ...details.map((t) => ({ ...t, fulfilmentUuid: fulfilment.uuid, createdAt: now }))] };
}
