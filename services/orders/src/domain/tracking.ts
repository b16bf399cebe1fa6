import { Problem, type Violation } from '@pf/platform/problems';
import type { Fulfilment, ShippingMethodChoice, TrackingDetail } from './model';
import { textViolations } from './order-input';

/** A tracking detail as recorded, before it belongs to a fulfilment. */
export type NewTracking = Omit<TrackingDetail, 'fulfilmentUuid' | 'createdAt'>;

/** A tracking detail as the back-office or a supplier sends it. */
export interface TrackingDetailInput {
  carrier?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  methodCode?: string | null;
  methodName?: string | null;
}

const TRACKING_LIMITS = { carrier: 255, trackingNumber: 255, trackingUrl: 2000, methodCode: 255, methodName: 255 } as const;

/**
 * Tracking details as recorded, or a validation failure naming each bad member: each member 1 to
 * its limit in characters, at least one of carrier, number and URL, and the URL an absolute
 * `http`/`https` one (it is shown to merchants and sent to shops as a link: `javascript:` and
 * the like are refused).
 */
export function validateTracking(details: readonly TrackingDetailInput[], property: string): NewTracking[] {
  const violations: Violation[] = [];
  const out = details.map((d, i) => {
    for (const [key, max] of Object.entries(TRACKING_LIMITS) as [keyof TrackingDetailInput, number][]) {
      violations.push(...textViolations(d[key], `${property}[${i}].${key}`, max, false));
    }
    if (d.trackingUrl && !isWebLink(d.trackingUrl)) {
      violations.push({ property: `${property}[${i}].trackingUrl`, message: 'An absolute http or https URL.' });
    }
    if (!d.carrier && !d.trackingNumber && !d.trackingUrl) {
      violations.push({ property: `${property}[${i}]`, message: 'Give at least one of carrier, trackingNumber, trackingUrl.' });
    }
    return {
      carrier: d.carrier ?? null,
      trackingNumber: d.trackingNumber ?? null,
      trackingUrl: d.trackingUrl ?? null,
      methodCode: d.methodCode ?? null,
      methodName: d.methodName ?? null,
    };
  });
  if (violations.length > 0) throw Problem.validation(violations);
  return out;
}

function isWebLink(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
}

/**
 * Tracking details as the fulfilment keeps them, with the service's shipping method code
 * (`methodCode`, which webhooks carry: spec sections 2 and 6) wherever it is known:
 * - a detail naming no method is the fulfilment's own (the one chosen at confirmation);
 * - a detail naming a method by name only gets the code of the team's method of that name (the
 *   fulfilment's own first when its name matches; none when no method or several have it);
 * - a detail naming a method by code only gets that method's name when the team has it;
 * - a detail naming both keeps them (the supplier may have shipped another way).
 * `teamMethods`: the team's shipping methods, needed only when `needsTeamMethods` says so.
 */
export function withShippingMethod(
  details: readonly NewTracking[],
  method: ShippingMethodChoice | null,
  teamMethods: readonly ShippingMethodChoice[] = [],
): NewTracking[] {
  return details.map((d) => {
    if (d.methodCode === null && d.methodName === null) return method ? { ...d, methodCode: method.code, methodName: method.name } : { ...d };
    if (d.methodCode === null) return { ...d, methodCode: codeNamed(d.methodName!, method, teamMethods) };
    if (d.methodName === null) return { ...d, methodName: teamMethods.find((m) => m.code === d.methodCode)?.name ?? null };
    return { ...d };
  });
}

/** Whether `withShippingMethod` needs the team's methods for these details (one of code and name given). */
export function needsTeamMethods(details: readonly NewTracking[]): boolean {
  return details.some((d) => (d.methodCode === null) !== (d.methodName === null));
}

function codeNamed(name: string, own: ShippingMethodChoice | null, teamMethods: readonly ShippingMethodChoice[]): string | null {
  const key = name.trim().toLowerCase();
  const named = (m: ShippingMethodChoice) => m.name.trim().toLowerCase() === key;
  if (own && named(own)) return own.code;
  const matches = teamMethods.filter(named);
  return matches.length === 1 ? matches[0]!.code : null;
}

/** The fulfilment with `details` added, each stamped with the fulfilment and the time. */
export function withTrackingAdded(fulfilment: Fulfilment, details: readonly NewTracking[], now: Date): Fulfilment {
  return { ...fulfilment, trackingDetails: [...fulfilment.trackingDetails, ...details.map((t) => ({ ...t, fulfilmentUuid: fulfilment.uuid, createdAt: now }))] };
}
