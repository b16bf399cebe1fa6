/**
 * Where the stock for an order's lines comes from. Pure: the use case loads the facts (with the
 * rows locked) and writes what this decides.
 *
 * - All or nothing: when any product lacks stock the result lists EVERY short product (requested
 *   over all its lines, available over its enabled warehouses) and allocates nothing.
 * - A line prefers ONE warehouse: first the one the same line was held in before (an amendment
 *   keeps its allocation when it can), then the warehouse able to cover the most lines of the
 *   order whole (fewer fulfilments), then the lowest code. Only when no single warehouse covers
 *   the line is it split, largest remaining stock first, so a figure of 7 made of 3 + 4 can be
 *   sold as 7.
 * - A print-on-demand product (approved and enabled) never runs short: a line is taken from a
 *   warehouse that covers it whole, and otherwise printed on demand (location `null`).
 * - A deleted product cannot be held: it is short with 0 available.
 */

/** A product as allocation sees it. */
export interface AllocationProduct {
  productUuid: string;
  sku: string | null;
  deleted: boolean;
  /** Print-on-demand approved and enabled. */
  printsOnDemand: boolean;
}

/**
 * What a warehouse can still sell of a product to this order (its own holds given back): an enabled
 * warehouse its free stock, a disabled one only what it already holds for the order.
 */
export interface WarehouseAvailability {
  warehouseId: string;
  /** Orders ties between warehouses. */
  code: string;
  productUuid: string;
  available: number;
}

export interface LineRequest {
  lineNumber: number;
  productUuid: string;
  quantity: number;
}

/** One part of a line: `warehouseId` null means print on demand. */
export interface LinePart {
  warehouseId: string | null;
  quantity: number;
}

export interface AllocatedLine {
  lineNumber: number;
  productUuid: string;
  quantity: number;
  parts: LinePart[];
}

export interface Shortage {
  productUuid: string;
  sku: string | null;
  /** Total quantity of the product over the order's lines. */
  requested: number;
  /** What the product's warehouses can still sell the order (enabled ones, and what disabled ones hold for it). */
  available: number;
}

export type Allocation = { kind: 'held'; lines: AllocatedLine[] } | { kind: 'short'; shortages: Shortage[] };

export interface AllocationInput {
  lines: readonly LineRequest[];
  products: ReadonlyMap<string, AllocationProduct>;
  availability: readonly WarehouseAvailability[];
  /** Where each line number was held before (an earlier hold of the same order). */
  previous?: ReadonlyMap<number, readonly LinePart[]>;
}

export function allocate(input: AllocationInput): Allocation {
  const remaining = new Map<string, Map<string, number>>(); // product -> warehouse -> available
  const codes = new Map<string, string>();
  for (const a of input.availability) {
    codes.set(a.warehouseId, a.code);
    const byWarehouse = remaining.get(a.productUuid) ?? new Map<string, number>();
    byWarehouse.set(a.warehouseId, (byWarehouse.get(a.warehouseId) ?? 0) + Math.max(a.available, 0));
    remaining.set(a.productUuid, byWarehouse);
  }
  const productOf = (uuid: string): AllocationProduct => {
    const p = input.products.get(uuid);
    if (!p) throw new Error(`allocate: product ${uuid} was not loaded`);
    return p;
  };
  const sellable = (p: AllocationProduct) => (p.deleted ? new Map<string, number>() : (remaining.get(p.productUuid) ?? new Map<string, number>()));

  // All or nothing: totals per product first, in the order products first appear.
  const requested = new Map<string, number>();
  for (const line of input.lines) requested.set(line.productUuid, (requested.get(line.productUuid) ?? 0) + line.quantity);
  const shortages: Shortage[] = [];
  for (const [uuid, quantity] of requested) {
    const p = productOf(uuid);
    if (!p.deleted && p.printsOnDemand) continue;
    const available = sum(sellable(p).values());
    if (quantity > available) shortages.push({ productUuid: uuid, sku: p.sku, requested: quantity, available });
  }
  if (shortages.length > 0) return { kind: 'short', shortages };

  // How many lines each warehouse could cover whole, from the stock as it is before allocating.
  const coverage = new Map<string, number>();
  for (const line of input.lines) {
    for (const [warehouseId, available] of sellable(productOf(line.productUuid))) {
      if (available >= line.quantity) coverage.set(warehouseId, (coverage.get(warehouseId) ?? 0) + 1);
    }
  }
  const byPreference = (a: string, b: string) =>
    (coverage.get(b) ?? 0) - (coverage.get(a) ?? 0) || compare(codes.get(a) ?? a, codes.get(b) ?? b);

  const lines: AllocatedLine[] = [];
  for (const line of [...input.lines].sort((a, b) => a.lineNumber - b.lineNumber)) {
    const p = productOf(line.productUuid);
    const stock = sellable(p);
    const before = input.previous?.get(line.lineNumber);
    const sticky = before?.length === 1 ? before[0]!.warehouseId : undefined;
    const covering = [...stock.entries()].filter(([, available]) => available >= line.quantity).map(([id]) => id);
    let parts: LinePart[];
    if (sticky !== undefined && sticky !== null && covering.includes(sticky)) {
      parts = [{ warehouseId: sticky, quantity: line.quantity }];
    } else if (sticky === null && p.printsOnDemand) {
      parts = [{ warehouseId: null, quantity: line.quantity }];
    } else if (covering.length > 0) {
      parts = [{ warehouseId: covering.sort(byPreference)[0]!, quantity: line.quantity }];
    } else if (p.printsOnDemand) {
      parts = [{ warehouseId: null, quantity: line.quantity }];
    } else {
      parts = [];
      let needed = line.quantity;
      const order = [...stock.entries()].filter(([, a]) => a > 0).sort(([a, x], [b, y]) => y - x || byPreference(a, b));
      for (const [warehouseId, available] of order) {
        if (needed === 0) break;
        const take = Math.min(available, needed);
        parts.push({ warehouseId, quantity: take });
        needed -= take;
      }
      // The totals were checked above, so this cannot happen; failing loudly beats holding too little.
      if (needed > 0) throw new Error(`allocate: line ${line.lineNumber} could not be covered`);
    }
    for (const part of parts) if (part.warehouseId !== null) stock.set(part.warehouseId, stock.get(part.warehouseId)! - part.quantity);
    lines.push({ lineNumber: line.lineNumber, productUuid: line.productUuid, quantity: line.quantity, parts });
  }
  return { kind: 'held', lines };
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
