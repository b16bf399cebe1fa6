import type { Violation } from '@pf/platform/problems';
import { isDestinationCountry } from '@pf/platform/countries';
import { longerThan, unstorableTextMessage } from '@pf/platform/text';

/**
 * Order input rules (rule O4 and spec section 2): every size limit is enforced here, whatever the
 * edge already checked, and each violation names the field as the REST body does
 * (`orderLines[7].product.sku`, `shippingDetails.postalCode`).
 */
export const LIMITS = {
  orderNumber: 255,
  printTrailOrderNumber: 255,
  sku: 255,
  lines: 500,
  quantity: 100_000,
  /** The column's (INTEGER) and the OpenAPI document's maximum. */
  lineNumber: 2_147_483_647,
} as const;

/** Maximum lengths of the shipping details: section 2's, and ours for the members it does not list. */
export const SHIPPING_LIMITS = {
  firstName: 100,
  lastName: 100,
  companyName: 150,
  address1: 250,
  address2: 250,
  address3: 250,
  address4: 250,
  city: 100,
  postalCode: 25,
  email: 100,
  phone: 50,
  'state.name': 100,
  'state.code': 30,
  'country.name': 100,
} as const;

export interface ShippingDetails {
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

export interface ShippingDetailsInput {
  firstName?: string | null;
  lastName?: string | null;
  companyName?: string | null;
  address1?: string | null;
  address2?: string | null;
  address3?: string | null;
  address4?: string | null;
  city?: string | null;
  postalCode?: string | null;
  state?: { name?: string | null; code?: string | null } | null;
  country?: { name?: string | null; code?: string | null } | null;
  email?: string | null;
  phone?: string | null;
}

export interface OrderLineInput {
  lineNumber?: number | null;
  product: { sku: string };
  quantity: number;
}

/** What createOrder, enterOrder and importOrders take. */
export interface OrderInput {
  orderNumber: string;
  printTrailOrderNumber?: string | null;
  orderLines: OrderLineInput[];
  shippingDetails?: ShippingDetailsInput | null;
  scheduledAt?: string | null;
  strictSkus?: boolean | null;
  reserve?: boolean | null;
}

/** A requested line, validated; `index` is its position in the request (for violations). */
export interface RequestedLine {
  index: number;
  lineNumber: number;
  sku: string;
  quantity: number;
}

export interface ValidOrderInput {
  orderNumber: string;
  printTrailOrderNumber: string | null;
  lines: RequestedLine[];
  shippingDetails: ShippingDetails | null;
  scheduledAt: Date | null;
  strictSkus: boolean;
  reserve: boolean;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

function tooLong(property: string, max: number): Violation {
  return { property, message: `At most ${max} characters.` };
}

/** A text member: required or not, not empty, storable, at most `max` characters. */
export function textViolations(value: string | null | undefined, property: string, max: number, required: boolean): Violation[] {
  if (value === null || value === undefined) return required ? [{ property, message: 'Required.' }] : [];
  if (value.length === 0) return [{ property, message: 'Must not be empty.' }];
  const unstorable = unstorableText(value, property);
  if (unstorable) return [unstorable];
  return longerThan(value, max) ? [tooLong(property, max)] : [];
}

/** Longest `reason` of a merchant action or a supplier's progress (kept in the status history, shown on dashboards). */
export const REASON_MAX_LENGTH = 500;

/** A merchant's or supplier's reason: optional, 1 to REASON_MAX_LENGTH characters. */
export function reasonViolations(reason: string | null | undefined, property = 'reason'): Violation[] {
  return textViolations(reason, property, REASON_MAX_LENGTH, false);
}

/** Text the platform cannot keep (U+0000, an unpaired surrogate: `unstorableTextMessage`), named; never a 500. */
export function unstorableText(value: string, property: string): Violation | null {
  const message = unstorableTextMessage(value);
  return message ? { property, message } : null;
}

/** An empty shipping member means "none" (shops send `address2: ""`): it reads as absent. */
function blankAsAbsent(value: string | null | undefined): string | null | undefined {
  return value === '' ? null : value;
}

/** The shipping members that are plain text (state and country are objects of their own). */
const PLAIN_SHIPPING_MEMBERS = ['firstName', 'lastName', 'companyName', 'address1', 'address2', 'address3', 'address4', 'city', 'postalCode', 'email', 'phone'] as const;

function withoutBlanks(input: ShippingDetailsInput): ShippingDetailsInput {
  const out: ShippingDetailsInput = {};
  for (const key of PLAIN_SHIPPING_MEMBERS) {
    out[key] = blankAsAbsent(input[key]);
  }
  if (input.state !== undefined) out.state = input.state && { name: blankAsAbsent(input.state.name), code: blankAsAbsent(input.state.code) };
  if (input.country !== undefined) out.country = input.country && { name: blankAsAbsent(input.country.name), code: blankAsAbsent(input.country.code) };
  return out;
}

/**
 * Validates lines (O4: at most 500, refused on the count alone; SKU at most 255; positive
 * quantities; line numbers positive and unique). `requireLineNumbers` for amendments, where lines
 * are matched on them; otherwise a line without one gets its position (from 1).
 */
export function validateLines(lines: readonly OrderLineInput[], opts: { requireLineNumbers: boolean; prefix?: string }): Validated<RequestedLine[]> {
  const at = (i: number, member: string) => `${opts.prefix ?? ''}orderLines[${i}]${member}`;
  if (lines.length > LIMITS.lines) {
    return { ok: false, violations: [{ property: `${opts.prefix ?? ''}orderLines`, message: `At most ${LIMITS.lines} order lines per request.` }] };
  }
  if (lines.length === 0) return { ok: false, violations: [{ property: `${opts.prefix ?? ''}orderLines`, message: 'At least one order line.' }] };
  const violations: Violation[] = [];
  const seen = new Map<number, { index: number; byPosition: boolean }>();
  const out: RequestedLine[] = [];
  lines.forEach((line, i) => {
    const sku = line.product?.sku;
    if (typeof sku !== 'string' || sku.length === 0) violations.push({ property: at(i, '.product.sku'), message: 'Required.' });
    else {
      const unstorable = unstorableText(sku, at(i, '.product.sku'));
      if (unstorable) violations.push(unstorable);
      else if (longerThan(sku, LIMITS.sku)) violations.push(tooLong(at(i, '.product.sku'), LIMITS.sku));
    }
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > LIMITS.quantity) {
      violations.push({ property: at(i, '.quantity'), message: `A whole number from 1 to ${LIMITS.quantity}.` });
    }
    let lineNumber = line.lineNumber ?? null;
    const numberedByPosition = lineNumber === null;
    if (lineNumber === null) {
      if (opts.requireLineNumbers) violations.push({ property: at(i, '.lineNumber'), message: 'Required: lines are matched on their line number.' });
      lineNumber = i + 1;
    } else if (!Number.isInteger(lineNumber) || lineNumber < 1 || lineNumber > LIMITS.lineNumber) {
      violations.push({ property: at(i, '.lineNumber'), message: `A whole number from 1 to ${LIMITS.lineNumber}.` });
    }
    const first = seen.get(lineNumber);
    if (first !== undefined) {
      const message = numberedByPosition || first.byPosition
        ? `Line number ${lineNumber} is also used by orderLines[${first.index}] (a line sent without a lineNumber is numbered by its position): give every line a lineNumber, or none.`
        : `Line number ${lineNumber} is also used by orderLines[${first.index}].`;
      violations.push({ property: at(i, '.lineNumber'), message });
    } else seen.set(lineNumber, { index: i, byPosition: numberedByPosition });
    out.push({ index: i, lineNumber, sku: sku ?? '', quantity: line.quantity });
  });
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: out };
}

/**
 * Validates and normalises shipping details (lengths of section 2; the country code an assigned one,
 * stored in upper case; an empty member is absent).
 */
export function validateShippingDetails(given: ShippingDetailsInput | null | undefined, prefix = 'shippingDetails'): Validated<ShippingDetails | null> {
  if (given === null || given === undefined) return { ok: true, value: null };
  const input = withoutBlanks(given);
  const violations: Violation[] = [];
  for (const key of PLAIN_SHIPPING_MEMBERS) violations.push(...textViolations(input[key], `${prefix}.${key}`, SHIPPING_LIMITS[key], false));
  violations.push(...textViolations(input.state?.name, `${prefix}.state.name`, SHIPPING_LIMITS['state.name'], false));
  violations.push(...textViolations(input.state?.code, `${prefix}.state.code`, SHIPPING_LIMITS['state.code'], false));
  violations.push(...textViolations(input.country?.name, `${prefix}.country.name`, SHIPPING_LIMITS['country.name'], false));
  const countryCode = input.country?.code;
  const countryCodeMessage = countryCode === null || countryCode === undefined ? null : destinationCountryMessage(countryCode);
  if (countryCodeMessage) violations.push({ property: `${prefix}.country.code`, message: countryCodeMessage });
  if (violations.length > 0) return { ok: false, violations };
  const v = (s: string | null | undefined) => (s === undefined || s === null ? null : s);
  const state = input.state && (v(input.state.name) !== null || v(input.state.code) !== null) ? { name: v(input.state.name), code: v(input.state.code) } : null;
  const country =
    input.country && (v(input.country.name) !== null || v(input.country.code) !== null)
      ? { name: v(input.country.name), code: countryCode ? countryCode.toUpperCase() : null }
      : null;
  return {
    ok: true,
    value: {
      firstName: v(input.firstName),
      lastName: v(input.lastName),
      companyName: v(input.companyName),
      address1: v(input.address1),
      address2: v(input.address2),
      address3: v(input.address3),
      address4: v(input.address4),
      city: v(input.city),
      postalCode: v(input.postalCode),
      state,
      country,
      email: v(input.email),
      phone: v(input.phone),
    },
  };
}

/**
 * Why a destination country code is refused, or null when it is one (isDestinationCountry: an
 * assigned ISO 3166-1 alpha-2 code in either case, or Kosovo's XK). A code no country has would
 * match no shipping method's countries and could never be delivered; `UK` (common, but not ISO) is
 * told `GB`.
 */
export function destinationCountryMessage(code: string): string | null {
  if (isDestinationCountry(code)) return null;
  if (code.toUpperCase() === 'UK') return 'UK is not an ISO 3166-1 alpha-2 code: the United Kingdom is GB.';
  return 'Must be an ISO 3166-1 alpha-2 country code (e.g. GB).';
}

/** The instants an order stores or filters by: years 1 to 9999 in UTC (Postgres has no year 0). */
const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 instant with a time zone designator, in UTC between 0001-01-01T00:00:00Z and
 * 9999-12-31T23:59:59.999Z, or a violation naming `property`. (`0001-01-01T00:30:00+01:00` is a
 * well-formed instant of year 0, which Postgres cannot store or compare.)
 */
export function parseInstant(value: string, property: string): Validated<Date> {
  // Any number of second fractions (RFC 3339's date-time, the OpenAPI format): kept to the millisecond.
  const form = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))$/i.exec(value);
  const date = new Date(value);
  if (!form || !onTheCalendar(form) || Number.isNaN(date.getTime())) {
    return { ok: false, violations: [{ property, message: 'An ISO 8601 date and time with a time zone, e.g. 2026-11-02T09:30:00Z.' }] };
  }
  if (date.getTime() < EARLIEST_INSTANT || date.getTime() > LATEST_INSTANT) {
    return { ok: false, violations: [{ property, message: 'A date and time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.' }] };
  }
  return { ok: true, value: date };
}

/** Each field of a parsed timestamp in its range: the Date parser rolls 30 February on to March. */
function onTheCalendar(form: RegExpExecArray): boolean {
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(form[i]));
  const second = Number(form[7] ?? 0);
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  const offsetOk = form[10] === undefined || (Number(form[10]) <= 23 && Number(form[11]) <= 59);
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second <= 59 && offsetOk;
}

/** The whole order input (create, enter, import). `prefix` names an order inside a batch. */
export function validateOrderInput(input: OrderInput, prefix = ''): Validated<ValidOrderInput> {
  const violations: Violation[] = [
    ...textViolations(input.orderNumber, `${prefix}orderNumber`, LIMITS.orderNumber, true),
    ...textViolations(input.printTrailOrderNumber, `${prefix}printTrailOrderNumber`, LIMITS.printTrailOrderNumber, false),
  ];
  const lines = validateLines(input.orderLines ?? [], { requireLineNumbers: false, prefix });
  if (!lines.ok) violations.push(...lines.violations);
  const shipping = validateShippingDetails(input.shippingDetails, `${prefix}shippingDetails`);
  if (!shipping.ok) violations.push(...shipping.violations);
  let scheduledAt: Date | null = null;
  if (input.scheduledAt !== null && input.scheduledAt !== undefined) {
    const parsed = parseInstant(input.scheduledAt, `${prefix}scheduledAt`);
    if (parsed.ok) scheduledAt = parsed.value;
    else violations.push(...parsed.violations);
  }
  if (violations.length > 0 || !lines.ok || !shipping.ok) return { ok: false, violations };
  return {
    ok: true,
    value: {
      orderNumber: input.orderNumber,
      printTrailOrderNumber: input.printTrailOrderNumber ?? null,
      lines: lines.value,
      shippingDetails: shipping.value,
      scheduledAt,
      strictSkus: input.strictSkus === true,
      reserve: input.reserve === true,
    },
  };
}

/** What an address needs before the order is confirmed (only white space is as good as nothing). */
export function confirmationAddressViolations(details: ShippingDetails | null): Violation[] {
  const missing: Violation[] = [];
  if (!details?.address1?.trim()) missing.push({ property: 'shippingDetails.address1', message: 'Required to confirm the order.' });
  if (!details?.city?.trim()) missing.push({ property: 'shippingDetails.city', message: 'Required to confirm the order.' });
  if (!details?.country?.code) missing.push({ property: 'shippingDetails.country.code', message: 'Required to confirm the order.' });
  return missing;
}
