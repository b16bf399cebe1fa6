import type { Violation } from '@pf/platform/problems';
import { assignedCountryCodeOf } from '@pf/platform/countries';
import { PRINT_ON_DEMAND_CODE } from './model';

/** Input checks of the stock use cases, each returning the violations it finds (empty: fine). */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WAREHOUSE_CODE = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;

export const MAX_REASON_LENGTH = 500;
export const MAX_NAME_LENGTH = 200;
/** Orders allow 500 lines per request; headroom for amendments that add lines. */
export const MAX_HOLD_LINES = 1000;
/** No line of an order needs more; keeps sums far from integer overflow. */
export const MAX_QUANTITY = 1_000_000;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function uuidViolations(value: string, property: string): Violation[] {
  return isUuid(value) ? [] : [{ property, message: 'Must be a uuid.' }];
}

export function warehouseCodeViolations(code: string, property: string): Violation[] {
  if (!WAREHOUSE_CODE.test(code)) {
    return [{ property, message: 'Must be 1-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit.' }];
  }
  if (code === PRINT_ON_DEMAND_CODE) return [{ property, message: `"${PRINT_ON_DEMAND_CODE}" is reserved for the print-on-demand location.` }];
  return [];
}

export function nameViolations(name: string, property: string): Violation[] {
  const length = name.trim().length;
  return length >= 1 && length <= MAX_NAME_LENGTH ? [] : [{ property, message: `Must be 1-${MAX_NAME_LENGTH} characters.` }];
}

/** A warehouse's country as kept: upper case, whichever case was sent (as orders take it); unchanged when it is no code (refused). */
export function warehouseCountryCode(code: string): string {
  return assignedCountryCodeOf(code) ?? code;
}

export function countryCodeViolations(code: string, property: string): Violation[] {
  return assignedCountryCodeOf(code) ? [] : [{ property, message: 'Must be an ISO 3166-1 alpha-2 country code (e.g. GB).' }];
}

export function reasonViolations(reason: string, property: string): Violation[] {
  const length = reason.trim().length;
  return length >= 1 && length <= MAX_REASON_LENGTH ? [] : [{ property, message: `A reason is required (1-${MAX_REASON_LENGTH} characters).` }];
}

export function quantityViolations(quantity: number, property: string, min: number): Violation[] {
  return Number.isInteger(quantity) && quantity >= min && quantity <= MAX_QUANTITY
    ? []
    : [{ property, message: `Must be a whole number from ${min} to ${MAX_QUANTITY}.` }];
}

export function deltaViolations(delta: number, property: string): Violation[] {
  return Number.isInteger(delta) && delta !== 0 && Math.abs(delta) <= MAX_QUANTITY
    ? []
    : [{ property, message: `Must be a whole number other than 0, at most ${MAX_QUANTITY} either way.` }];
}

export interface HoldLineInput {
  lineNumber: number;
  productUuid: string;
  quantity: number;
}

/** The lines of a hold request: bounded, unique line numbers, uuids, positive quantities. */
export function holdLinesViolations(lines: readonly HoldLineInput[], property: string): Violation[] {
  if (lines.length > MAX_HOLD_LINES) return [{ property, message: `At most ${MAX_HOLD_LINES} lines.` }];
  const violations: Violation[] = [];
  const seen = new Set<number>();
  lines.forEach((line, i) => {
    const at = `${property}[${i}]`;
    if (!Number.isInteger(line.lineNumber) || line.lineNumber < 0) {
      violations.push({ property: `${at}.lineNumber`, message: 'Must be a whole number, 0 or more.' });
    } else if (seen.has(line.lineNumber)) {
      violations.push({ property: `${at}.lineNumber`, message: `Line number ${line.lineNumber} appears more than once.` });
    }
    seen.add(line.lineNumber);
    violations.push(...uuidViolations(line.productUuid, `${at}.productUuid`));
    violations.push(...quantityViolations(line.quantity, `${at}.quantity`, 1));
  });
  return violations;
}

/** The largest hold id (stock_hold.id is a BIGSERIAL). */
const HOLD_ID_MAX = 9_223_372_036_854_775_807n;

/** A hold id as the column holds it: a positive integer up to bigint's maximum (a larger one would fail the cast: a 500). */
export function isHoldId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= HOLD_ID_MAX;
}
