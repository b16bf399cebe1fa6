import { actorOf, type Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { allocate, type LinePart, type Shortage } from '../domain/allocation';
import { authoriseHolds, authoriseWarehouseStockRead, maySeeTeam } from '../domain/authorisation';
import {
  byProductThenWarehouse,
  consumption,
  giveBack,
  holdMoveTimes,
  holdsAt,
  levelKey,
  reinstatableHolds,
  reinstatement,
  reinstatementShortages,
  release,
  restoration,
  restorationDeltas,
  returnableHolds,
  takeAgain,
  unconsumption,
  type HoldMove,
  type LevelDelta,
  type StockMovePlan,
} from '../domain/hold-stock-moves';
import { printOnDemandLocation, warehouseLocation, type ProductFacts, type StockHold, type SupplierLocation, type WarehouseStock } from '../domain/model';
import { printsOnDemand, stockFigure, type FigureSnapshot, type WarehouseLevel } from '../domain/stock-figure';
import { holdLinesViolations, isHoldId, uuidViolations, type HoldLineInput } from '../domain/validation';
import { checkFence, fenceViolations } from '../domain/order-fence';
import { holdsOfOrder, holdsOfOrderRead, lockOrderRead, moveHolds, reinstateReleasedHolds, releasePlacedHolds, writeHoldChange } from '../repositories/hold-repository';
import { orderFenceRead, raiseOrderFence } from '../repositories/order-fence-repository';
import { lockProductsRead } from '../repositories/product-repository';
import { applyHoldDeltas, insertAdjustment, levelsRead } from '../repositories/stock-repository';
import { changeTimeRead, changeWithEvents, stockLevelEvents, type StockDeps, type Tx } from './deps';

export interface HoldStockInput {
  /** The order's team: every product must be one of its products. */
  teamCode: string;
  orderUuid: string;
  /** The order's complete set of lines: holding again replaces the order's placed holds. */
  lines: HoldLineInput[];
  /** The calling change's fence token (domain/order-fence.ts); null or absent: none. */
  fence?: string | null;
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
  | {
      kind: 'held';
      orderUuid: string;
      lines: HeldLine[];
      /** The order's placed holds before this change: restoreHolds with them undoes it exactly. */
      previousHoldIds: string[];
    }
  | { kind: 'short'; orderUuid: string; shortages: Shortage[] };

/**
 * Holds stock for an order's lines, all or nothing, and replaces any holds the order already had
 * (an amendment sends the new complete set of lines; the same lines again change nothing).
 *
 * Concurrency: the order's advisory lock, then the rows of every product involved, in uuid order
 * (see lockProductsRead). Two orders racing for the last units therefore run one after the other:
 * the second sees the first's holds and gets what is left, or a shortage; stock never goes
 * negative and the fixed order leaves no room for deadlocks.
 */
export async function holdStock(deps: StockDeps, identity: Identity, input: HoldStockInput): Promise<HoldResult> {
  authoriseHolds(identity);
  const violations: Violation[] = [
    ...uuidViolations(input.orderUuid, 'input.orderUuid'),
    ...(input.teamCode.trim() === '' ? [{ property: 'input.teamCode', message: 'Name the order\'s team.' }] : []),
    ...holdLinesViolations(input.lines, 'input.lines'),
    ...fenceViolations(input.fence, 'input.fence'),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  const orderUuid = input.orderUuid.toLowerCase();
  const lines = input.lines.map((l) => ({ ...l, productUuid: l.productUuid.toLowerCase() }));

  return changeWithEvents<HoldResult>(deps, async (tx) => {
    const existing = await lockOrderPastFence(deps, tx, orderUuid, input.fence, 'placed');
    if (existing.some((h) => h.teamCode !== input.teamCode)) {
      throw new Problem('conflict', { detail: `Order ${orderUuid} holds stock of another team.` });
    }
    // The products locked, then their levels read under the locks: one round trip.
    const involved = [...new Set([...lines.map((l) => l.productUuid), ...existing.map((h) => h.productUuid)])];
    const [products, levels, at] = await tx.reads([lockProductsRead(involved), levelsRead(involved), changeTimeRead(deps)]);
    const byUuid = new Map(products.map((p) => [p.uuid, p]));
    const unknown = lines.flatMap((l, i) =>
      byUuid.get(l.productUuid)?.teamCode === input.teamCode
        ? []
        : [{ property: `input.lines[${i}].productUuid`, message: `Team ${input.teamCode} has no product ${l.productUuid}.` }],
    );
    if (unknown.length > 0) throw Problem.validation(unknown);

    const before = snapshots(products, levels, new Map());
    // What each warehouse could sell this order if its own holds were given back first: an enabled
    // one its free stock; a disabled one sells nothing new but keeps what it promised this order
    // (docs/stock.md), so an order holding there can be confirmed or reduced where it is.
    const ownHeld = new Map<string, number>();
    for (const h of existing) if (h.warehouseId) ownHeld.set(levelKey(h.productUuid, h.warehouseId), (ownHeld.get(levelKey(h.productUuid, h.warehouseId)) ?? 0) + h.quantity);
    const availability = levels.flatMap((l) => {
      const own = ownHeld.get(levelKey(l.productUuid, l.warehouse.id)) ?? 0;
      const free = Math.max(l.onHand - (l.held - own), 0);
      if (!l.warehouse.enabled && own === 0) return [];
      return [{ warehouseId: l.warehouse.id, code: l.warehouse.code, productUuid: l.productUuid, available: l.warehouse.enabled ? free : Math.min(own, free) }];
    });
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
      const k = levelKey(productUuid, warehouseId);
      const d = deltas.get(k) ?? { productUuid, warehouseId, held: 0, onHand: 0 };
      d.held += held;
      deltas.set(k, d);
    };
    for (const h of released) addDelta(h.productUuid, h.warehouseId, -h.quantity);
    for (const h of placed) addDelta(h.productUuid, h.warehouseId, h.quantity);
    const after = snapshots(products, levels, deltas);
    const events = stockLevelEvents(before, after, at);
    // The change and its events in one statement, sent with COMMIT (the products stay locked until then).
    writeHoldChange(
      tx,
      { releasedIds: released.map((h) => h.id), placed, deltas: [...deltas.values()].filter((d) => d.held !== 0).sort(byProductThenWarehouse), at },
      events,
    );

    const warehouses = new Map(levels.map((l) => [l.warehouse.id, l.warehouse]));
    const location = (warehouseId: string | null) =>
      warehouseId ? warehouseLocation(warehouses.get(warehouseId)!) : printOnDemandLocation(deps.podCountryCode);
    return {
      result: {
        kind: 'held',
        orderUuid,
        previousHoldIds: existing.map((h) => h.id),
        lines: allocation.lines.map((l) => ({
          lineNumber: l.lineNumber,
          productUuid: l.productUuid,
          sku: byUuid.get(l.productUuid)!.sku,
          quantity: l.quantity,
          allocations: l.parts.map((p) => ({ location: location(p.warehouseId), quantity: p.quantity })),
        })),
      },
      // Written with the change above.
      events: [],
    };
  });
}

/**
 * Releases the order's placed holds (never sent): every one (the order was cancelled, went back to
 * draft, or finished), or with `locationCodes` those of these supplier locations only (one
 * fulfilment each: a draft fulfilment cancelled). `held` goes down, on hand stays; releasing
 * again finds nothing placed and changes nothing.
 */
export async function releaseHolds(deps: StockDeps, identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOf(orderUuid, fence);
  return changeHeld(deps, order, fence, {
    status: 'placed',
    select: (holds) => holdsAt(holds, 'placed', locationCodes),
    rule: release,
    write: (tx, holds, at) => releasePlacedHolds(tx, holds.map((h) => h.id), at),
    result: (h, at) => ({ ...h, status: 'released', releasedAt: at }),
  });
}

/**
 * Compensation of releaseHolds: the order change that released these holds did not commit, so the
 * order still counts on them. The named released holds of the order are placed again (`held` goes
 * back up, whatever was sold meanwhile: the order keeps what it had). Holds not released (any
 * more), and lines the order holds again at that location by now, are left alone, so undoing
 * twice changes nothing.
 */
export async function reinstateHolds(deps: StockDeps, identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOfWithHoldIds(orderUuid, holdIds, fence);
  const ids = new Set(holdIds);
  return changeHeld(deps, order, fence, {
    status: null,
    select: (holds) => reinstatableHolds(holds, ids),
    rule: reinstatement,
    refusal: reinstatementRefusal,
    write: (tx, holds) => reinstateReleasedHolds(tx, holds.map((h) => h.id)),
    result: (h) => ({ ...h, status: 'placed', releasedAt: null }),
  });
}

/**
 * Compensation of holdStock: the order change that held did not commit, so the order still counts
 * on the holds it had before (holdStock's `previousHoldIds`, none when it held nothing). Its placed
 * holds become exactly those: the ones the hold placed are released, the ones it released are
 * placed again, at the very warehouses the order's fulfilments name (holding the old lines anew
 * could allocate elsewhere). In one change, so a figure never shows half of it; restoring again
 * changes nothing. Refused, changing nothing, when stock sold since cannot be held again.
 */
export async function restoreHolds(deps: StockDeps, identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOfWithHoldIds(orderUuid, holdIds, fence);
  const ids = new Set(holdIds);
  return changeWithEvents(deps, async (tx) => {
    // Decided on all the order's holds (read under its lock): a hold that stays placed keeps its line's old one out.
    let plan: { release: StockHold[]; reinstate: StockHold[] } = { release: [], reinstate: [] };
    const locked = await lockOrderHolds(deps, tx, order, fence, null, (holds) => {
      plan = restoration(holds, ids);
      return [...plan.release, ...plan.reinstate];
    });
    if (!locked) return { result: [], events: [] };
    const { products, levels, before, at } = locked;
    const { release: out, reinstate: back } = plan;
    const released = release(out);
    // What the warehouses can sell once the change's own holds are given back.
    const freed = new Map(released.map((d) => [levelKey(d.productUuid, d.warehouseId), d.held]));
    const refused = reinstatementRefusal(
      back,
      levels.map((l) => ({ ...l, held: l.held + (freed.get(levelKey(l.productUuid, l.warehouse.id)) ?? 0) })),
    );
    if (refused) throw refused;
    await releasePlacedHolds(tx, out.map((h) => h.id), at);
    await reinstateReleasedHolds(tx, back.map((h) => h.id));
    const moves = restorationDeltas(plan);
    await applyHoldDeltas(tx, moves);
    const after = snapshots(products, levels, new Map(moves.map((d) => [levelKey(d.productUuid, d.warehouseId), d])));
    const result = [
      ...out.map((h) => ({ ...h, status: 'released' as const, releasedAt: at })),
      ...back.map((h) => ({ ...h, status: 'placed' as const, releasedAt: null })),
    ];
    return { result, events: stockLevelEvents(before, after, at) };
  });
}

/**
 * Released holds are placed again only while their warehouses can still sell them: stock sold in
 * the meantime is not held twice. 409 `stock-unavailable` listing each short product otherwise.
 */
function reinstatementRefusal(holds: readonly StockHold[], levels: readonly WarehouseStock[]): Problem | null {
  const shortages = reinstatementShortages(holds, levels);
  if (shortages.length === 0) return null;
  return new Problem('stock-unavailable', {
    detail: `The released holds cannot be placed again: ${shortages.map((s) => s.sku ?? s.productUuid).join(', ')} sold meanwhile.`,
    extensions: { shortages },
  });
}

/**
 * One change of `held` only (release, reinstate), under the order's lock and its products' locks
 * as every hold change, with one `stock-level.changed` per product whose figure changed.
 */
async function changeHeld(
  deps: StockDeps,
  order: string,
  fence: string | null | undefined,
  how: {
    /** The holds read under the lock (null: every status). */
    status: StockHold['status'] | null;
    select: (holds: StockHold[]) => StockHold[];
    rule: (holds: readonly StockHold[]) => LevelDelta[];
    /** Why the change cannot be made with the stock as it is (read under the locks), if it cannot. */
    refusal?: (holds: readonly StockHold[], levels: readonly WarehouseStock[]) => Problem | null;
    write: (tx: Tx, holds: StockHold[], at: Date) => Promise<void>;
    result: (hold: StockHold, at: Date) => StockHold;
  },
): Promise<StockHold[]> {
  return changeWithEvents(deps, async (tx) => {
    const locked = await lockOrderHolds(deps, tx, order, fence, how.status, how.select);
    if (!locked) return { result: [], events: [] };
    const { holds, products, levels, before, at } = locked;
    const refused = how.refusal?.(holds, levels);
    if (refused) throw refused;
    const deltas = how.rule(holds);
    await how.write(tx, holds, at);
    await applyHoldDeltas(tx, deltas);
    const after = snapshots(products, levels, new Map(deltas.map((d) => [levelKey(d.productUuid, d.warehouseId), d])));
    return { result: holds.map((h) => how.result(h, at)), events: stockLevelEvents(before, after, at) };
  });
}

/**
 * Consumes the order's placed holds (its fulfilments were sent): the stock leaves the warehouse
 * (on hand and held both go down, logged as adjustments of kind `consume`). `locationCodes`
 * limits it to the holds of those supplier locations (one fulfilment each); null: all.
 */
export async function consumeHolds(deps: StockDeps, identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOf(orderUuid, fence);
  return moveOrderHolds(deps, identity, order, fence, {
    select: (holds) => holdsAt(holds, 'placed', locationCodes),
    rule: consumption,
    move: { from: 'placed', to: 'consumed' },
    kind: 'consume',
    reason: (h) => `Order ${order} line ${h.lineNumber} sent`,
    logZero: true,
  });
}

/**
 * Gives the order's consumed stock back to on hand: its fulfilments at those supplier locations
 * (null: all) were sent but never left the warehouse (the order was cancelled or went back to
 * holding, or the supplier cancelled them). Each consumed warehouse hold gives back what it took
 * (adjustment of kind `return`) and becomes `returned`, so returning again changes nothing.
 * Print-on-demand holds took nothing and stay consumed. `held` does not move: consumed holds no
 * longer counted there.
 */
export async function returnHolds(deps: StockDeps, identity: Identity, orderUuid: string, locationCodes?: readonly string[] | null, fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOf(orderUuid, fence);
  return moveOrderHolds(deps, identity, order, fence, {
    select: (holds) => returnableHolds(holds, locationCodes),
    rule: giveBack,
    move: { from: 'consumed', to: 'returned' },
    kind: 'return',
    reason: (h) => `Order ${order} line ${h.lineNumber} not dispatched: back on hand`,
    logZero: false,
  });
}

/**
 * Compensation of returnHolds: the order change that returned these holds did not commit, so the
 * order still counts them as sent. The named returned holds of the order take their stock off
 * hand again (adjustments of kind `consume`) and are consumed again; holds not returned (any
 * more) are left alone, so undoing twice changes nothing.
 */
export async function reconsumeHolds(deps: StockDeps, identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOfWithHoldIds(orderUuid, holdIds, fence);
  const ids = new Set(holdIds);
  return moveOrderHolds(deps, identity, order, fence, {
    select: (holds) => holdsAt(holds, 'returned').filter((h) => ids.has(h.id)),
    rule: takeAgain,
    move: { from: 'returned', to: 'consumed' },
    kind: 'consume',
    reason: (h) => `Order ${order} line ${h.lineNumber} sent (return undone)`,
    logZero: false,
  });
}

/**
 * Compensation of consumeHolds: the order change that sent these holds did not commit, so the
 * order still counts them as held. The named consumed holds of the order are placed again, on hand
 * and `held` back to what they were (adjustments of kind `return`); holds not consumed (any more)
 * are left alone, so undoing twice changes nothing.
 */
export async function unconsumeHolds(deps: StockDeps, identity: Identity, orderUuid: string, holdIds: readonly string[], fence?: string | null): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOfWithHoldIds(orderUuid, holdIds, fence);
  const ids = new Set(holdIds);
  return moveOrderHolds(deps, identity, order, fence, {
    select: (holds) => holdsAt(holds, 'consumed').filter((h) => ids.has(h.id)),
    rule: unconsumption,
    move: { from: 'consumed', to: 'placed' },
    kind: 'return',
    reason: (h) => `Order ${order} line ${h.lineNumber} not sent after all (sending undone)`,
    logZero: false,
  });
}

/**
 * The order's holds in `status` (null: every status) that `select` keeps, under the order's
 * advisory lock (a call `fence` does not pass is refused there) and then the locks of their
 * products in uuid order (every hold change locks in this order: no deadlocks), with the
 * products' stock rows and figures before the change; null when there are none.
 */
async function lockOrderHolds(
  deps: StockDeps,
  tx: Tx,
  order: string,
  fence: string | null | undefined,
  status: StockHold['status'] | null,
  select: (holds: StockHold[]) => StockHold[],
): Promise<{ holds: StockHold[]; products: ProductFacts[]; levels: WarehouseStock[]; before: FigureSnapshot[]; at: Date } | null> {
  const holds = select(await lockOrderPastFence(deps, tx, order, fence, status ?? undefined));
  if (holds.length === 0) return null;
  const involved = [...new Set(holds.map((h) => h.productUuid))];
  const [products, levels, at] = await tx.reads([lockProductsRead(involved), levelsRead(involved), changeTimeRead(deps)]);
  return { holds, products, levels, before: snapshots(products, levels, new Map()), at };
}

/** The order uuid, lower-cased, after checking it and the call's fence token. */
function orderOf(orderUuid: string, fence?: string | null): string {
  const violations = [...uuidViolations(orderUuid, 'orderUuid'), ...fenceViolations(fence, 'fence')];
  if (violations.length > 0) throw Problem.validation(violations);
  return orderUuid.toLowerCase();
}

/** The order uuid, lower-cased, after checking it, the hold ids a compensation names and its fence token. */
function orderOfWithHoldIds(orderUuid: string, holdIds: readonly string[], fence?: string | null): string {
  const violations = [
    ...uuidViolations(orderUuid, 'orderUuid'),
    ...holdIds.flatMap((id, i) => (isHoldId(id) ? [] : [{ property: `holdIds[${i}]`, message: 'A hold id (a positive integer).' }])),
    ...fenceViolations(fence, 'fence'),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  return orderUuid.toLowerCase();
}

/**
 * One move of an order's holds that changes on-hand stock (consume, return, undo a return): under
 * the order's lock, then its products' locks in uuid order, as every hold change; one adjustment
 * per hold that moved stock, the holds' new status with what each took, the stock rows, and one
 * `stock-level.changed` per product whose figure changed.
 */
async function moveOrderHolds(
  deps: StockDeps,
  identity: Identity,
  order: string,
  fence: string | null | undefined,
  how: {
    select: (holds: StockHold[]) => StockHold[];
    rule: (holds: readonly StockHold[], onHand: ReadonlyMap<string, number>) => StockMovePlan;
    move: HoldMove;
    kind: 'consume' | 'return';
    reason: (hold: StockHold) => string;
    /** Log a hold that moved nothing (consuming stock a count had already taken away). */
    logZero: boolean;
  },
): Promise<StockHold[]> {
  return changeWithEvents(deps, async (tx) => {
    const locked = await lockOrderHolds(deps, tx, order, fence, how.move.from, how.select);
    if (!locked) return { result: [], events: [] };
    const { holds, products, levels, before, at } = locked;
    const plan = how.rule(holds, new Map(levels.map((l) => [levelKey(l.productUuid, l.warehouse.id), l.onHand])));
    const taken = new Map(plan.moves.map((m) => [m.hold.id, m.taken]));
    for (const m of plan.moves) {
      if (m.delta === 0 && !how.logZero) continue;
      await insertAdjustment(tx, {
        teamCode: m.hold.teamCode,
        productUuid: m.hold.productUuid,
        warehouseId: m.hold.warehouseId!,
        kind: how.kind,
        delta: m.delta,
        onHandAfter: m.onHandAfter,
        reason: how.reason(m.hold),
        actor: actorOf(identity),
        at,
      });
    }
    // A print-on-demand hold moves status only: it takes nothing.
    const moved = holds.map((h) => ({ ...h, status: how.move.to, taken: taken.get(h.id) ?? 0 }));
    await moveHolds(tx, moved, how.move, at);
    await applyHoldDeltas(tx, plan.deltas);
    const after = snapshots(products, levels, new Map(plan.deltas.map((d) => [levelKey(d.productUuid, d.warehouseId), d])));
    const times = holdMoveTimes(how.move, at);
    const result = moved.map((h) => ({ ...h, ...times }));
    return { result, events: stockLevelEvents(before, after, at) };
  });
}

/**
 * The orders service, putting an order's holds right after a change that did not finish: raises
 * the order's fence to `fence` (the repairing change's token) and answers every hold of the order,
 * read under its lock. Calls of earlier changes that reach stock afterwards are refused, so what
 * the repair reads here is what it acts on. A token below the order's fence is refused too (a
 * later change repaired it meanwhile).
 */
export async function fenceOrderHolds(deps: StockDeps, identity: Identity, orderUuid: string, fence: string): Promise<StockHold[]> {
  authoriseHolds(identity);
  const order = orderOf(orderUuid, fence);
  return changeWithEvents(deps, async (tx) => {
    const holds = await lockOrderPastFence(deps, tx, order, fence);
    raiseOrderFence(tx, order, BigInt(fence));
    return { result: holds, events: [] };
  });
}

/**
 * Takes the order's advisory lock, then reads its fence and its holds (in `status`, or all) under
 * it, in one round trip; refuses (409 `conflict`) a call of a change a later change of the order
 * has fenced out, before it writes anything.
 */
async function lockOrderPastFence(deps: StockDeps, tx: Tx, order: string, fence: string | null | undefined, status?: StockHold['status']): Promise<StockHold[]> {
  const [, raised, holds] = await tx.reads([lockOrderRead(order), orderFenceRead(order), holdsOfOrderRead(order, deps.podCountryCode, status)]);
  const check = checkFence(raised, fence ? BigInt(fence) : null);
  if (check.kind === 'pass') return holds;
  throw new Problem('conflict', {
    detail: `A later change of order ${order} has taken over its stock (fence ${check.fence}); this call (${check.call === null ? 'no fence' : `fence ${check.call}`}) is refused.`,
    extensions: { fenced: true },
  });
}

/** The order's holds, every status (back-office and services). Another team's order: none. */
export async function orderHolds(deps: StockDeps, identity: Identity, orderUuid: string): Promise<StockHold[]> {
  authoriseWarehouseStockRead(identity);
  if (uuidViolations(orderUuid, 'orderUuid').length > 0) return [];
  const holds = await holdsOfOrder(deps.pool, orderUuid.toLowerCase(), deps.podCountryCode);
  return holds.filter((h) => maySeeTeam(identity, h.teamCode));
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
    const d = deltas.get(levelKey(l.productUuid, l.warehouse.id));
    const list = byProduct.get(l.productUuid) ?? [];
    list.push({ warehouseEnabled: l.warehouse.enabled, onHand: Math.max(l.onHand + (d?.onHand ?? 0), 0), held: l.held + (d?.held ?? 0) });
    byProduct.set(l.productUuid, list);
  }
  return products.map((p) => ({ productUuid: p.uuid, teamCode: p.teamCode, sku: p.sku, figure: stockFigure(p, byProduct.get(p.uuid) ?? []) }));
}

