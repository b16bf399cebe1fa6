import type { Fulfilment, FulfilmentLine, OrderLine, ShippingMethodChoice, SupplierLocation } from './model';

/** Where the stock service placed a line's holds (its `StockHeld` answer). */
export interface HeldLine {
  lineNumber: number;
  quantity: number;
  allocations: { location: SupplierLocation; quantity: number }[];
}

/** The lines the stock service can hold, as a hold asks for them: those matched to a product. */
export function holdableLines(lines: readonly OrderLine[]): { lineNumber: number; productUuid: string; quantity: number }[] {
  return lines.filter((l) => l.productUuid !== null).map((l) => ({ lineNumber: l.lineNumber, productUuid: l.productUuid!, quantity: l.quantity }));
}

/** A fulfilment to write: one per supplier location, lines sorted by line number. */
export interface NewFulfilment {
  uuid: string;
  supplierLocation: SupplierLocation;
  shippingMethod: ShippingMethodChoice | null;
  lines: FulfilmentLine[];
}

/**
 * Groups the held allocations by supplier location: one draft fulfilment per location, ordered by
 * location code (as they are read back). A line the stock service split over several locations
 * appears in each with the quantity held there. Each fulfilment keeps the shipping method of the
 * previous fulfilment of the same location (an amendment keeps what was chosen at confirmation),
 * else the order's chosen method.
 */
export function buildFulfilments(
  lines: readonly OrderLine[],
  held: readonly HeldLine[],
  opts: { newUuid: () => string; method: ShippingMethodChoice | null; previous?: readonly Fulfilment[] },
): NewFulfilment[] {
  const skuOf = new Map(lines.map((l) => [l.lineNumber, l.sku]));
  const byLocation = new Map<string, { location: SupplierLocation; lines: Map<number, number> }>();
  const ordered = [...held].sort((a, b) => a.lineNumber - b.lineNumber);
  for (const line of ordered) {
    for (const a of line.allocations) {
      const group = byLocation.get(a.location.code) ?? { location: { code: a.location.code, countryCode: a.location.countryCode }, lines: new Map<number, number>() };
      group.lines.set(line.lineNumber, (group.lines.get(line.lineNumber) ?? 0) + a.quantity);
      byLocation.set(a.location.code, group);
    }
  }
  const previousMethod = new Map((opts.previous ?? []).map((f) => [f.supplierLocation.code, f.shippingMethod]));
  const groups = [...byLocation.values()].sort((a, b) => (a.location.code < b.location.code ? -1 : a.location.code > b.location.code ? 1 : 0));
  return groups.map((g) => ({
    uuid: opts.newUuid(),
    supplierLocation: g.location,
    shippingMethod: previousMethod.get(g.location.code) ?? opts.method,
    lines: [...g.lines.entries()]
      .sort(([a], [b]) => a - b)
      .map(([lineNumber, quantity]) => ({ lineNumber, sku: skuOf.get(lineNumber) ?? '', quantity })),
  }));
}

export interface ReplacedFulfilment {
  supplierLocation: SupplierLocation;
  previousUuid: string | null;
  newUuid: string | null;
}

/** Which new fulfilment replaced which old one, paired by supplier location (one fulfilment each). */
export function replacedFulfilments(previous: readonly { uuid: string; supplierLocation: SupplierLocation }[], next: readonly NewFulfilment[]): ReplacedFulfilment[] {
  const out: ReplacedFulfilment[] = [];
  const nextByCode = new Map(next.map((f) => [f.supplierLocation.code, f]));
  for (const p of previous) {
    out.push({ supplierLocation: p.supplierLocation, previousUuid: p.uuid, newUuid: nextByCode.get(p.supplierLocation.code)?.uuid ?? null });
    nextByCode.delete(p.supplierLocation.code);
  }
  for (const n of nextByCode.values()) out.push({ supplierLocation: n.supplierLocation, previousUuid: null, newUuid: n.uuid });
  return out;
}
