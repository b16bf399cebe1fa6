import type { Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { allocate, type LinePart, type Shortage } from '../domain/allocation';
import { authoriseHolds, authoriseWarehouseStockRead, maySeeTeam } from '../domain/authorisation';
import { printOnDemandLocation, warehouseLocation, type ProductFacts, type StockHold, type SupplierLocation, type WarehouseStock } from '../domain/model';
import { printsOnDemand, stockFigure, type FigureSnapshot, type WarehouseLevel } from '../domain/stock-figure';
import { holdLinesViolations, uuidViolations, type HoldLineInput } from '../domain/validation';
import { finishHolds, holdsOfOrder, insertPlacedHolds, lockOrder } from '../repositories/hold-repository';
import { lockProducts } from '../repositories/product-repository';
import { applyHoldDeltas, insertAdjustment, levelsOf } from '../repositories/stock-repository';
import { actorOf, changeWithEvents, nowOf, stockLevelEvents, type StockDeps, type Tx } from './deps';

export interface HoldStockInput {
  /** The order's team: every product must be one of its products. */
  teamCode: string;
  orderUuid: string;
  /** The order's complete set of lines: holding again replaces the order's placed holds. */
  lines: HoldLineInput[];
}

export interface HeldLine {
  lineNumber: number;
  productUuid: string;
  sku: string | null;
  quantity: number;
  /** Where the line ships from: usually one location; a line no single warehouse covers is split. */
  allocations: { location: SupplierLocation; quantity: number }[];
}

export type HoldResult =
  | { kind: 'held'; orderUuid: string; lines: HeldLine[] }
  | { kind: 'short'; orderUuid: string; shortages: Shortage[] };

/**
 * Holds stock for an order's lines, all or nothing, and replaces any holds the order already had
 * (an amendment sends the new complete set of lines; the same lines again change nothing).
 *
 * Concurrency: the order's advisory lock, then the rows of every product involved, in uuid order
 * (see lockProducts). Two orders racing for the last units therefore run one after the other:
 * the second sees the first's holds and gets what is left, or a shortage; stock never goes
 * negative and the fixed order leaves no room for deadlocks.
 */
export async function holdStock(deps: StockDeps, identity: Identity, input: HoldStockInput): Promise<HoldResult> {
  authoriseHolds(identity);
  const violations: Violation[] = [
    ...uuidViolations(input.orderUuid, 'input.orderUuid'),
    ...(input.teamCode.trim() === '' ? [{ property: 'input.teamCode', message: 'Name the order\'s team.' }] : []),
    ...holdLinesViolations(input.lines, 'input.lines'),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  const orderUuid = input.orderUuid.toLowerCase();
  const lines = input.lines.map((l) => ({ ...l, productUuid: l.productUuid.toLowerCase() }));

  return changeWithEvents<HoldResult>(deps, async (tx) => {
    await lockOrder(tx, orderUuid);
    const existing = await holdsOfOrder(tx, orderUuid, deps.podCountryCode, 'placed');
    if (existing.some((h) => h.teamCode !== input.teamCode)) {
      throw new Problem('conflict', { detail: `Order ${orderUuid} holds stock of another team.` });
    }
    const products = await lockProducts(tx, [...lines.map((l) => l.productUuid), ...existing.map((h) => h.productUuid)]);
    const byUuid = new Map(products.map((p) => [p.uuid, p]));
    const unknown = lines.flatMap((l, i) =>
      byUuid.get(l.productUuid)?.teamCode === input.teamCode
        ? []
        : [{ property: `input.lines[${i}].productUuid`, message: `Team ${input.teamCode} has no product ${l.productUuid}.` }],
    );
    if (unknown.length > 0) throw Problem.validation(unknown);

    const levels = await levelsOf(
      tx,
      products.map((p) => p.uuid),
    );
    const before = snapshots(products, levels, new Map());
    // What each enabled warehouse could sell if this order's own holds were given back first.
    const ownHeld = new Map<string, number>();
    for (const h of existing) if (h.warehouseId) ownHeld.set(key(h.productUuid, h.warehouseId), (ownHeld.get(key(h.productUuid, h.warehouseId)) ?? 0) + h.quantity);
    const availability = levels
      .filter((l) => l.warehouse.enabled)
      .map((l) => ({
        warehouseId: l.warehouse.id,
        code: l.warehouse.code,
        productUuid: l.productUuid,
        available: Math.max(l.onHand - (l.held - (ownHeld.get(key(l.productUuid, l.warehouse.id)) ?? 0)), 0),
      }));
    const previous = new Map<number, LinePart[]>();
    for (const h of existing) {
      const line = lines.find((l) => l.lineNumber === h.lineNumber);
      if (line?.productUuid !== h.productUuid) continue;
      previous.set(h.lineNumber, [...(previous.get(h.lineNumber) ?? []), { warehouseId: h.warehouseId, quantity: h.quantity }]);
    }
    const allocation = allocate({
      lines,
      products: new Map(
        products.map((p) => [p.uuid, { productUuid: p.uuid, sku: p.sku, deleted: p.deleted, printsOnDemand: printsOnDemand(p) }]),
      ),
      availability,
      previous,
    });
    if (allocation.kind === 'short') return { result: { kind: 'short', orderUuid, shortages: allocation.shortages }, events: [] };

    // Keep identical holds, release the others, place the new ones.
    const wanted = allocation.lines.flatMap((l) =>
      l.parts.map((p) => ({ teamCode: input.teamCode, orderUuid, lineNumber: l.lineNumber, productUuid: l.productUuid, warehouseId: p.warehouseId, quantity: p.quantity })),
    );
    const holdKey = (h: { lineNumber: number; productUuid: string; warehouseId: string | null; quantity: number }) =>
      `${h.lineNumber}|${h.productUuid}|${h.warehouseId ?? 'pod'}|${h.quantity}`;
    const wantedKeys = new Set(wanted.map(holdKey));
    const existingKeys = new Set(existing.map(holdKey));
    const released = existing.filter((h) => !wantedKeys.has(holdKey(h)));
    const placed = wanted.filter((h) => !existingKeys.has(holdKey(h)));
    const deltas = new Map<string, { productUuid: string; warehouseId: string; held: number; onHand: number }>();
    const addDelta = (productUuid: string, warehouseId: string | null, held: number) => {
      if (!warehouseId) return;
      const k = key(productUuid, warehouseId);
      const d = deltas.get(k) ?? { productUuid, warehouseId, held: 0, onHand: 0 };
      d.held += held;
      deltas.set(k, d);
    };
    for (const h of released) addDelta(h.productUuid, h.warehouseId, -h.quantity);
    for (const h of placed) addDelta(h.productUuid, h.warehouseId, h.quantity);
    const at = nowOf(deps);
    await finishHolds(
      tx,
      released.map((h) => h.id),
      'released',
      at,
    );
    const changedRows = [...deltas.values()].filter((d) => d.held !== 0).sort(byProductThenWarehouse);
    await applyHoldDeltas(tx, changedRows);
    await insertPlacedHolds(tx, placed, at);
    const after = snapshots(products, levels, deltas);

    const warehouses = new Map(levels.map((l) => [l.warehouse.id, l.warehouse]));
    const location = (warehouseId: string | null) =>
      warehouseId ? warehouseLocation(warehouses.get(warehouseId)!) : printOnDemandLocation(deps.podCountryCode);
    return {
      result: {
        kind: 'held',
        orderUuid,
        lines: allocation.lines.map((l) => ({
          lineNumber: l.lineNumber,
          productUuid: l.productUuid,
          sku: byUuid.get(l.productUuid)!.sku,
          quantity: l.quantity,
          allocations: l.parts.map((p) => ({ location: location(p.warehouseId), quantity: p.quantity })),
        })),
      },
      events: stockLevelEvents(before, after, at),
    };
  });
}

/** Releases every placed hold of the order (cancelled, or back to draft). Again: nothing to do. */
export async function releaseHolds(deps: StockDeps, identity: Identity, orderUuid: string): Promise<StockHold[]> {
  authoriseHolds(identity);
  return finishOrderHolds(deps, identity, orderUuid, 'released', () => true);
}

/**
 * Consumes the order's placed holds (its fulfilments were sent): the stock leaves the warehouse
 * (on hand and held both go down, logged as adjustments of kind `consume`). `locationCodes`
 * limits it to the holds of those supplier locations (one fulfilment each); null: all.
 */
export async function consumeHolds(deps: StockDeps, identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  return finishOrderHolds(deps, identity, orderUuid, 'consumed', (h) => !locationCodes || locationCodes.includes(h.location.code));
}

async function finishOrderHolds(
  deps: StockDeps,
  identity: Identity,
  orderUuid: string,
  status: 'released' | 'consumed',
  select: (hold: StockHold) => boolean,
): Promise<StockHold[]> {
  const violations = uuidViolations(orderUuid, 'orderUuid');
  if (violations.length > 0) throw Problem.validation(violations);
  const order = orderUuid.toLowerCase();
  return changeWithEvents(deps, async (tx) => {
    await lockOrder(tx, order);
    const holds = (await holdsOfOrder(tx, order, deps.podCountryCode, 'placed')).filter(select);
    if (holds.length === 0) return { result: [], events: [] };
    const products = await lockProducts(
      tx,
      holds.map((h) => h.productUuid),
    );
    const levels = await levelsOf(
      tx,
      products.map((p) => p.uuid),
    );
    const before = snapshots(products, levels, new Map());
    const at = nowOf(deps);
    const onHandOf = new Map(levels.map((l) => [key(l.productUuid, l.warehouse.id), l.onHand]));
    const deltas = new Map<string, { productUuid: string; warehouseId: string; held: number; onHand: number }>();
    for (const h of holds) {
      if (!h.warehouseId) continue;
      const k = key(h.productUuid, h.warehouseId);
      const d = deltas.get(k) ?? { productUuid: h.productUuid, warehouseId: h.warehouseId, held: 0, onHand: 0 };
      d.held -= h.quantity;
      if (status === 'consumed') {
        // A count set below what orders held leaves less to send than was held: never below 0.
        const left = (onHandOf.get(k) ?? 0) + d.onHand;
        const taken = Math.min(h.quantity, left);
        d.onHand -= taken;
        await insertAdjustment(tx, {
          teamCode: h.teamCode,
          productUuid: h.productUuid,
          warehouseId: h.warehouseId,
          kind: 'consume',
          delta: -taken,
          onHandAfter: left - taken,
          reason: `Order ${order} line ${h.lineNumber} sent`,
          actor: actorOf(identity),
          at,
        });
      }
      deltas.set(k, d);
    }
    await finishHolds(
      tx,
      holds.map((h) => h.id),
      status,
      at,
    );
    await applyHoldDeltas(tx, [...deltas.values()].sort(byProductThenWarehouse));
    const after = snapshots(products, levels, deltas);
    const finished = holds.map((h) => ({ ...h, status, ...(status === 'released' ? { releasedAt: at } : { consumedAt: at }) }));
    return { result: finished, events: stockLevelEvents(before, after, at) };
  });
}

/** The order's holds, every status (back-office and services). Another team's order: none. */
export async function orderHolds(deps: StockDeps, identity: Identity, orderUuid: string): Promise<StockHold[]> {
  authoriseWarehouseStockRead(identity);
  if (uuidViolations(orderUuid, 'orderUuid').length > 0) return [];
  const holds = await holdsOfOrder(deps.prisma, orderUuid.toLowerCase(), deps.podCountryCode);
  return holds.filter((h) => maySeeTeam(identity, h.teamCode));
}

function key(productUuid: string, warehouseId: string): string {
  return `${productUuid}|${warehouseId}`;
}

function byProductThenWarehouse(a: { productUuid: string; warehouseId: string }, b: { productUuid: string; warehouseId: string }): number {
  return a.productUuid < b.productUuid ? -1 : a.productUuid > b.productUuid ? 1 : a.warehouseId < b.warehouseId ? -1 : a.warehouseId > b.warehouseId ? 1 : 0;
}

/**
 * The figures of the locked products from the stock rows read under the lock, with `deltas`
 * (this transaction's own changes) applied: the rule is evaluated in memory, no second read.
 */
function snapshots(
  products: readonly ProductFacts[],
  levels: readonly WarehouseStock[],
  deltas: ReadonlyMap<string, { held: number; onHand: number }>,
): FigureSnapshot[] {
  const byProduct = new Map<string, WarehouseLevel[]>();
  for (const l of levels) {
    const d = deltas.get(key(l.productUuid, l.warehouse.id));
    const list = byProduct.get(l.productUuid) ?? [];
    list.push({ warehouseEnabled: l.warehouse.enabled, onHand: Math.max(l.onHand + (d?.onHand ?? 0), 0), held: l.held + (d?.held ?? 0) });
    byProduct.set(l.productUuid, list);
  }
  return products.map((p) => ({ productUuid: p.uuid, teamCode: p.teamCode, sku: p.sku, figure: stockFigure(p, byProduct.get(p.uuid) ?? []) }));
}

