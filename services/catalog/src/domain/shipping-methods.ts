import { isDestinationCountry } from '@pf/platform/countries';
import { Problem, type Violation } from '@pf/platform/problems';
import { longerThan } from '@pf/platform/text';
import type { ServiceLevel, ShippingMethod, ShippingMethodFields } from './model';

/**
 * Shipping method codes are what an integration sends when confirming an order: 1-64 lowercase
 * letters, digits, hyphens and underscores, starting and ending with a letter or digit.
 */
export const SHIPPING_METHOD_CODE = /^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$/;
export const SERVICE_LEVELS = ['economy', 'standard', 'express'] as const satisfies readonly ServiceLevel[];
export const METHOD_NAME_MAX_LENGTH = 200;
export const CARRIER_MAX_LENGTH = 100;
export const MAX_DELIVERY_DAYS = 365;
export const PRIORITY_MAX = 10_000;
export const DEFAULT_PRIORITY = 100;
/** There are 249 ISO 3166-1 countries. */
export const COUNTRY_CODES_MAX = 250;

export interface NewShippingMethodInput {
  code: string;
  name: string;
  carrier: string;
  active?: boolean | null;
  countryCodes?: string[] | null;
  serviceLevel?: string | null;
  tracked?: boolean | null;
  minDeliveryDays?: number | null;
  maxDeliveryDays?: number | null;
  priority?: number | null;
}

/**
 * A change to a shipping method. Absent fields stay; null clears `minDeliveryDays` /
 * `maxDeliveryDays` and empties `countryCodes` (every country); null is ignored elsewhere.
 */
export interface ShippingMethodChangeInput {
  name?: string | null;
  carrier?: string | null;
  active?: boolean | null;
  countryCodes?: string[] | null;
  serviceLevel?: string | null;
  tracked?: boolean | null;
  minDeliveryDays?: number | null;
  maxDeliveryDays?: number | null;
  priority?: number | null;
}

export function shippingMethodCodeViolations(code: string, property: string): Violation[] {
  if (SHIPPING_METHOD_CODE.test(code)) return [];
  return [
    {
      property,
      message: 'A shipping method code has 1 to 64 characters: lowercase letters, digits, hyphens and underscores, starting and ending with a letter or digit.',
    },
  ];
}

function textViolations(text: string, max: number, what: string, property: string): Violation[] {
  const trimmed = text.trim();
  if (trimmed.length === 0) return [{ property, message: `A ${what} must not be blank.` }];
  if (longerThan(trimmed, max)) return [{ property, message: `A ${what} has at most ${max} characters.` }];
  return [];
}

export function countryCodesViolations(codes: string[], property: string): Violation[] {
  if (codes.length > COUNTRY_CODES_MAX) return [{ property, message: `At most ${COUNTRY_CODES_MAX} country codes.` }];
  return codes.flatMap((code, i) =>
    isDestinationCountry(code) ? [] : [{ property: `${property}[${i}]`, message: 'A country code is an assigned ISO 3166-1 alpha-2 code (e.g. GB), or XK.' }],
  );
}

/** Upper case, without duplicates, sorted: one spelling per set of countries. */
export function normaliseCountryCodes(codes: string[]): string[] {
  return [...new Set(codes.map((c) => c.toUpperCase()))].sort();
}

function serviceLevelViolations(level: string, property: string): Violation[] {
  if ((SERVICE_LEVELS as readonly string[]).includes(level)) return [];
  return [{ property, message: `The service level is one of ${SERVICE_LEVELS.join(', ')}.` }];
}

/** Delivery estimates in working days: both or neither, 0 to 365, min at most max. */
export function deliveryDaysViolations(min: number | null, max: number | null, prefix: string): Violation[] {
  const inRange = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_DELIVERY_DAYS;
  const violations: Violation[] = [];
  if (min !== null && !inRange(min)) violations.push({ property: `${prefix}.minDeliveryDays`, message: `Between 0 and ${MAX_DELIVERY_DAYS} days.` });
  if (max !== null && !inRange(max)) violations.push({ property: `${prefix}.maxDeliveryDays`, message: `Between 0 and ${MAX_DELIVERY_DAYS} days.` });
  if (violations.length > 0) return violations;
  if ((min === null) !== (max === null)) {
    const missing = min === null ? 'minDeliveryDays' : 'maxDeliveryDays';
    return [{ property: `${prefix}.${missing}`, message: 'Give both minDeliveryDays and maxDeliveryDays, or neither.' }];
  }
  if (min !== null && max !== null && min > max) {
    return [{ property: `${prefix}.maxDeliveryDays`, message: 'maxDeliveryDays is at least minDeliveryDays.' }];
  }
  return [];
}

function priorityViolations(priority: number, property: string): Violation[] {
  if (Number.isInteger(priority) && priority >= 0 && priority <= PRIORITY_MAX) return [];
  return [{ property, message: `The priority is a whole number from 0 to ${PRIORITY_MAX} (lowest preferred).` }];
}

/**
 * Validates a new shipping method and fills in the defaults (active, every country, standard,
 * untracked, no estimate, priority 100).
 * @throws Problem validation-failed naming each bad field
 */
export function newShippingMethodFields(input: NewShippingMethodInput, prefix = 'input'): { code: string; fields: ShippingMethodFields } {
  const min = input.minDeliveryDays ?? null;
  const max = input.maxDeliveryDays ?? null;
  const violations: Violation[] = [
    ...shippingMethodCodeViolations(input.code, `${prefix}.code`),
    ...textViolations(input.name, METHOD_NAME_MAX_LENGTH, 'name', `${prefix}.name`),
    ...textViolations(input.carrier, CARRIER_MAX_LENGTH, 'carrier', `${prefix}.carrier`),
    ...(input.countryCodes ? countryCodesViolations(input.countryCodes, `${prefix}.countryCodes`) : []),
    ...(input.serviceLevel != null ? serviceLevelViolations(input.serviceLevel, `${prefix}.serviceLevel`) : []),
    ...deliveryDaysViolations(min, max, prefix),
    ...(input.priority != null ? priorityViolations(input.priority, `${prefix}.priority`) : []),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  return {
    code: input.code,
    fields: {
      name: input.name.trim(),
      carrier: input.carrier.trim(),
      active: input.active ?? true,
      countryCodes: normaliseCountryCodes(input.countryCodes ?? []),
      serviceLevel: (input.serviceLevel ?? 'standard') as ServiceLevel,
      tracked: input.tracked ?? false,
      minDeliveryDays: min,
      maxDeliveryDays: max,
      priority: input.priority ?? DEFAULT_PRIORITY,
    },
  };
}

/**
 * Validates a change and returns only the fields that differ from `current` (empty: nothing to do).
 * @throws Problem validation-failed naming each bad field
 */
export function shippingMethodChanges(
  current: ShippingMethodFields,
  input: ShippingMethodChangeInput,
  prefix = 'input',
): Partial<ShippingMethodFields> {
  const min = input.minDeliveryDays !== undefined ? input.minDeliveryDays : current.minDeliveryDays;
  const max = input.maxDeliveryDays !== undefined ? input.maxDeliveryDays : current.maxDeliveryDays;
  const violations: Violation[] = [
    ...(input.name != null ? textViolations(input.name, METHOD_NAME_MAX_LENGTH, 'name', `${prefix}.name`) : []),
    ...(input.carrier != null ? textViolations(input.carrier, CARRIER_MAX_LENGTH, 'carrier', `${prefix}.carrier`) : []),
    ...(input.countryCodes ? countryCodesViolations(input.countryCodes, `${prefix}.countryCodes`) : []),
    ...(input.serviceLevel != null ? serviceLevelViolations(input.serviceLevel, `${prefix}.serviceLevel`) : []),
    ...deliveryDaysViolations(min, max, prefix),
    ...(input.priority != null ? priorityViolations(input.priority, `${prefix}.priority`) : []),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  const next: Partial<ShippingMethodFields> = {};
  if (input.name != null && input.name.trim() !== current.name) next.name = input.name.trim();
  if (input.carrier != null && input.carrier.trim() !== current.carrier) next.carrier = input.carrier.trim();
  if (input.active != null && input.active !== current.active) next.active = input.active;
  if (input.countryCodes !== undefined) {
    const codes = normaliseCountryCodes(input.countryCodes ?? []);
    if (codes.join() !== current.countryCodes.join()) next.countryCodes = codes;
  }
  if (input.serviceLevel != null && input.serviceLevel !== current.serviceLevel) next.serviceLevel = input.serviceLevel as ServiceLevel;
  if (input.tracked != null && input.tracked !== current.tracked) next.tracked = input.tracked;
  if (min !== current.minDeliveryDays) next.minDeliveryDays = min;
  if (max !== current.maxDeliveryDays) next.maxDeliveryDays = max;
  if (input.priority != null && input.priority !== current.priority) next.priority = input.priority;
  return next;
}

/** Whether the method delivers to the country (an empty list serves every country). */
export function servesCountry(method: Pick<ShippingMethod, 'countryCodes'>, countryCode: string): boolean {
  return method.countryCodes.length === 0 || method.countryCodes.includes(countryCode.toUpperCase());
}

/** Order of preference: lowest priority first, then by code. */
export function byPreference(a: Pick<ShippingMethod, 'priority' | 'code'>, b: Pick<ShippingMethod, 'priority' | 'code'>): number {
  return a.priority - b.priority || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

/** A country code filter as given by a caller: two letters, any case. */
export function countryFilterViolations(countryCode: string, property: string): Violation[] {
  return isDestinationCountry(countryCode) ? [] : [{ property, message: 'A country code is an assigned ISO 3166-1 alpha-2 code (e.g. GB), or XK.' }];
}
