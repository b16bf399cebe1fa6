import { ACTIVE_STATES } from '@pf/platform/events/catalog';
import { Problem, type Violation } from '@pf/platform/problems';
import { longerThan, unstorableTextMessage } from '@pf/platform/text';
import { DIMENSION_NAMES, type ActiveState, type DimensionName, type Dimensions, type Measure, type ProductFields } from './model';

/** The contract's limit on SKUs (Channel API sections 2 and 8). */
export const SKU_MAX_LENGTH = 255;
export const NAME_MAX_LENGTH = 255;
export const DESCRIPTION_MAX_LENGTH = 5000;

export const WEIGHT_UNITS = ['g', 'kg', 'oz', 'lb'] as const;
export const LENGTH_UNITS = ['cm', 'mm', 'm', 'in'] as const;
/** Units allowed for each measure: weight by mass, the other three by length. */
export const UNITS_OF: Record<DimensionName, readonly string[]> = {
  weight: WEIGHT_UNITS,
  length: LENGTH_UNITS,
  width: LENGTH_UNITS,
  depth: LENGTH_UNITS,
};
/** Measurements are stored as NUMERIC(12, 3). */
export const MEASUREMENT_MAX = 999_999_999.999;
export const MEASUREMENT_DECIMALS = 3;

export { ACTIVE_STATES };

/** A measure as a caller sends it (the unit is free text until validated). */
export interface MeasureInput {
  measurement: number;
  unit: string;
}

/** Dimensions as a caller sends them: any of the four measures, each possibly null. */
export type DimensionsInput = Partial<Record<DimensionName, MeasureInput | null>>;

/** What a caller sends to create a product. */
export interface NewProductInput {
  sku?: string | null;
  name: string;
  description?: string | null;
  activeState?: string | null;
  podEnabled?: boolean | null;
  podApproved?: boolean | null;
  dimensions?: DimensionsInput | null;
}

/**
 * What a caller sends to change a product. An absent field stays as it is. For the nullable
 * fields (`sku`, `description`, `dimensions`) null clears them; for the others null is ignored.
 * `dimensions` replaces all four measures at once.
 */
export interface ProductChangeInput {
  sku?: string | null;
  name?: string | null;
  description?: string | null;
  activeState?: string | null;
  podEnabled?: boolean | null;
  podApproved?: boolean | null;
  dimensions?: DimensionsInput | null;
}

export function isActiveState(value: string): value is ActiveState {
  return (ACTIVE_STATES as readonly string[]).includes(value);
}

export function activeStateViolations(value: string, property: string): Violation[] {
  if (isActiveState(value)) return [];
  return [{ property, message: `The active state is one of ${ACTIVE_STATES.join(', ')} (lowercase).` }];
}

// Control characters would make a SKU impossible to type or print, and invisible in a CSV.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * A SKU is the merchant's own product code, matched exactly (case and all) against order lines:
 * 1 to 255 characters, no surrounding whitespace, no control characters. A product without a
 * SKU has null, never the empty string.
 */
export function skuViolations(sku: string, property: string): Violation[] {
  if (sku.length === 0) return [{ property, message: 'A SKU must not be empty; use null for a product without a SKU.' }];
  if (longerThan(sku, SKU_MAX_LENGTH)) return [{ property, message: `A SKU has at most ${SKU_MAX_LENGTH} characters.` }];
  if (sku.trim() !== sku) return [{ property, message: 'A SKU must not start or end with whitespace.' }];
  if (CONTROL_CHARACTER.test(sku)) return [{ property, message: 'A SKU must not contain control characters.' }];
  return unstorable(sku, property);
}

export function nameViolations(name: string, property: string): Violation[] {
  const trimmed = name.trim();
  if (trimmed.length === 0) return [{ property, message: 'A name must not be blank.' }];
  if (longerThan(trimmed, NAME_MAX_LENGTH)) return [{ property, message: `A name has at most ${NAME_MAX_LENGTH} characters.` }];
  return unstorable(name, property);
}

export function descriptionViolations(description: string, property: string): Violation[] {
  if (longerThan(description, DESCRIPTION_MAX_LENGTH)) {
    return [{ property, message: `A description has at most ${DESCRIPTION_MAX_LENGTH} characters.` }];
  }
  return unstorable(description, property);
}

/** Text the platform cannot keep (NUL, an unpaired surrogate): refused, not stored as U+FFFD. */
function unstorable(value: string, property: string): Violation[] {
  const message = unstorableTextMessage(value);
  return message ? [{ property, message }] : [];
}

/** The violations of one measure, naming `<property>.measurement` or `<property>.unit`. */
export function measureViolations(name: DimensionName, measure: MeasureInput, property: string): Violation[] {
  const violations: Violation[] = [];
  const m = measure.measurement;
  if (typeof m !== 'number' || !Number.isFinite(m) || m <= 0) {
    violations.push({ property: `${property}.measurement`, message: 'A measurement is a number greater than 0.' });
  } else if (m > MEASUREMENT_MAX) {
    violations.push({ property: `${property}.measurement`, message: `A measurement is at most ${MEASUREMENT_MAX}.` });
  } else if (Number(m.toFixed(MEASUREMENT_DECIMALS)) !== m) {
    violations.push({ property: `${property}.measurement`, message: `A measurement has at most ${MEASUREMENT_DECIMALS} decimals.` });
  }
  if (!UNITS_OF[name].includes(measure.unit)) {
    violations.push({ property: `${property}.unit`, message: `The unit of ${name} is one of ${UNITS_OF[name].join(', ')}.` });
  }
  return violations;
}

export function dimensionsViolations(input: DimensionsInput, property: string): Violation[] {
  return DIMENSION_NAMES.flatMap((name) => {
    const measure = input[name];
    return measure ? measureViolations(name, measure, `${property}.${name}`) : [];
  });
}

/** Valid dimensions input as the product keeps it: null when no measure is given. */
export function toDimensions(input: DimensionsInput | null | undefined): Dimensions | null {
  if (!input) return null;
  const measure = (name: DimensionName): Measure | null => {
    const m = input[name];
    return m ? { measurement: m.measurement, unit: m.unit } : null;
  };
  const dimensions: Dimensions = { weight: measure('weight'), length: measure('length'), width: measure('width'), depth: measure('depth') };
  return DIMENSION_NAMES.some((n) => dimensions[n] !== null) ? dimensions : null;
}

export function sameDimensions(a: Dimensions | null, b: Dimensions | null): boolean {
  if (a === null || b === null) return a === b;
  return DIMENSION_NAMES.every((n) => {
    const x = a[n];
    const y = b[n];
    return x === null || y === null ? x === y : x.measurement === y.measurement && x.unit === y.unit;
  });
}

/** Blank descriptions are no description. */
function normaliseDescription(description: string | null | undefined): string | null {
  return description == null || description.trim() === '' ? null : description;
}

/**
 * Validates a new product and fills in the defaults (active, no print-on-demand).
 * @throws Problem validation-failed with one violation per bad field, named from `prefix`
 */
export function newProductFields(input: NewProductInput, prefix = 'input'): ProductFields {
  const violations: Violation[] = [
    ...(input.sku != null ? skuViolations(input.sku, `${prefix}.sku`) : []),
    ...nameViolations(input.name, `${prefix}.name`),
    ...(input.description != null ? descriptionViolations(input.description, `${prefix}.description`) : []),
    ...(input.activeState != null ? activeStateViolations(input.activeState, `${prefix}.activeState`) : []),
    ...(input.dimensions ? dimensionsViolations(input.dimensions, `${prefix}.dimensions`) : []),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  return {
    sku: input.sku ?? null,
    name: input.name.trim(),
    description: normaliseDescription(input.description),
    activeState: (input.activeState ?? 'active') as ActiveState,
    podEnabled: input.podEnabled ?? false,
    podApproved: input.podApproved ?? false,
    dimensions: toDimensions(input.dimensions),
  };
}

/**
 * Validates a change and returns only the fields whose value differs from `current` (empty when
 * the change changes nothing: no new version, no event).
 * @throws Problem validation-failed with one violation per bad field, named from `prefix`
 */
export function productChanges(current: ProductFields, input: ProductChangeInput, prefix = 'input'): Partial<ProductFields> {
  const violations: Violation[] = [
    ...(input.sku != null ? skuViolations(input.sku, `${prefix}.sku`) : []),
    ...(input.name != null ? nameViolations(input.name, `${prefix}.name`) : []),
    ...(input.description != null ? descriptionViolations(input.description, `${prefix}.description`) : []),
    ...(input.activeState != null ? activeStateViolations(input.activeState, `${prefix}.activeState`) : []),
    ...(input.dimensions ? dimensionsViolations(input.dimensions, `${prefix}.dimensions`) : []),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  const next: Partial<ProductFields> = {};
  if (input.sku !== undefined && input.sku !== current.sku) next.sku = input.sku;
  if (input.name != null && input.name.trim() !== current.name) next.name = input.name.trim();
  if (input.description !== undefined && normaliseDescription(input.description) !== current.description) {
    next.description = normaliseDescription(input.description);
  }
  if (input.activeState != null && input.activeState !== current.activeState) next.activeState = input.activeState as ActiveState;
  if (input.podEnabled != null && input.podEnabled !== current.podEnabled) next.podEnabled = input.podEnabled;
  if (input.podApproved != null && input.podApproved !== current.podApproved) next.podApproved = input.podApproved;
  if (input.dimensions !== undefined) {
    const dimensions = toDimensions(input.dimensions);
    if (!sameDimensions(dimensions, current.dimensions)) next.dimensions = dimensions;
  }
  return next;
}

/** The conflict answered when a SKU is already used by another live product of the team. */
export function skuTaken(sku: string): Problem {
  return new Problem('conflict', { detail: `Another product of the team already has SKU "${sku}".`, extensions: { sku } });
}
