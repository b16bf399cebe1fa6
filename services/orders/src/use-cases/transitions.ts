import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { Problem, type Violation } from '@pf/platform/problems';
import { StockUnavailableError, type HoldOutcome, type Shortage, type StockApi } from '../adapters/stock-client';
import { buildFulfilments, holdableLines, type HeldLine } from '../domain/fulfilments';
import type { Fulfilment, Order, OrderLine, ShippingMethodChoice } from '../domain/model';
import { settlementOf, stockStepOf, stockStepsOf, type FulfilmentMove } from '../domain/fulfilment-stock';
import { confirmationAddressViolations } from '../domain/order-input';
import { FINISHED_FULFILMENT_STATUSES, type Decision, type FulfilmentStatus, type OrderStatus } from '../domain/order-state-machine';
import { chooseShippingMethod } from '../domain/shipping-methods';
import {
  clearTimer,
  deleteFulfilments,
  insertFulfilments,
  insertStatusChange,
  setFulfilmentStatuses,
  setDraftFulfilmentsShippingMethod,
  setTimer,
  updateOrder,
  type Tx,
} from '../repositories/order-repository';
import { read } from '@pf/platform/db/transaction';
import { teamFactsRead, type TeamFacts } from '../repositories/read-model-repository';
import { newUuidOf, nowOf, stockUnavailable, type OrdersDeps, type Unit } from './deps';
import { orderEvents } from './events';

/** Who and what caused a change, for the status history. */
export interface ChangeCause {
  actor: string;
  trigger: string;
  reason?: string | null;
}

export interface ChangeContext {
  deps: OrdersDeps;
  tx: Tx;
  unit: Unit;
  cause: ChangeCause;
  /** Fulfilment status changes made in memory, written (and announced) with the order by saveOrder. */
  pending: PendingFulfilmentChange[];
  /** The one instant of this change: confirmedAt, fulfillableFrom and updatedAt agree. */
  now: Date;
  /** The order's team, once read (teamFactsOf); read with the order's lock when the change asked for it. */
  team?: TeamFacts;
}

/**
 * The team's activity and shipping methods for this change: as read with the order's lock
 * (changeVisibleOrder's `readTeam`), or read now, both in one round trip, and kept for the change.
 */
export async function teamFactsOf(ctx: ChangeContext, teamCode: string): Promise<TeamFacts> {
  if (ctx.team?.code !== teamCode) ctx.team = await read(ctx.tx, teamFactsRead(teamCode));
  return ctx.team;
}

interface PendingFulfilmentChange {
  uuid: string;
  status: FulfilmentStatus;
  from: FulfilmentStatus;
  f: Fulfilment;
}

export function changeContext(deps: OrdersDeps, tx: Tx, unit: Unit, cause: ChangeCause): ChangeContext {
  return { deps, tx, unit, cause, pending: [], now: nowOf(deps) };
}

/** `stock-unavailable` (409 without type): every short SKU with what was asked and what is there. */
export function stockShortProblem(order: Pick<Order, 'lines'>, shortages: readonly Shortage[]): Problem {
  const skuOf = new Map(order.lines.filter((l) => l.productUuid).map((l) => [l.productUuid!, l.sku]));
  const shortSkus = shortages.map((s) => ({ sku: skuOf.get(s.productUuid) ?? s.sku, requested: s.requested, available: s.available }));
  return new Problem('stock-unavailable', {
    detail: `Stock could not be held for ${shortSkus.map((s) => s.sku).join(', ')}.`,
    extensions: { shortSkus },
  });
}

/** Holds stock for these lines (replacing the order's holds); the stock service's answer. */
export async function holdLines(stock: StockApi, order: Pick<Order, 'uuid' | 'teamCode'>, lines: readonly OrderLine[]): Promise<HoldOutcome> {
  try {
    return await stock.holdStock({ teamCode: order.teamCode, orderUuid: order.uuid, lines: holdableLines(lines) });
  } catch (err) {
    if (err instanceof StockUnavailableError) throw stockUnavailable();
    throw err;
  }
}

/**
 * Compensation of a hold this change made: the order's placed holds become again exactly those it
 * had before (none, or those of its previous lines at the warehouses its fulfilments name; holding
 * the previous lines anew could allocate elsewhere).
 */
export function undoHoldOnRollback(ctx: ChangeContext, orderUuid: string, held: Extract<HoldOutcome, { kind: 'held' }>): void {
  // Stock sold in the meantime is refused: not undone, so the journal row stays and the stock repair moves the order.
  ctx.unit.onRollback(() => ctx.unit.stock.restoreHolds(orderUuid, held.previousHoldIds));
}

/**
 * Gives the order's placed holds back, compensated by placing exactly those holds again (at the
 * locations its fulfilments name; holding anew could allocate elsewhere).
 */
export async function releaseHolds(ctx: ChangeContext, order: Order): Promise<void> {
  if (!order.stockHeld) return;
  await releaseHoldsAt(ctx, order.uuid, null);
}

/** Asks the stock service; unreachable: 503 `unavailable`, worth retrying. */
async function askStock<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof StockUnavailableError) throw stockUnavailable();
    throw err;
  }
}

/**
 * Whether a fulfilment going from `from` to `to` gives its consumed stock back to on hand: it was
 * sent and not dispatched, and it is cancelled (with its order, or by its supplier) or discarded
 * (the order went back before confirmation). Not when it `failed` (stockStepOf says why).
 */
export function returnsConsumedStock(from: FulfilmentStatus, to: FulfilmentStatus | 'discarded'): boolean {
  return stockStepOf(from, to) === 'return';
}

/** The supplier locations whose consumed stock these fulfilment moves give back (one fulfilment per location). */
export function locationsGivingBack(moves: readonly FulfilmentMove[]): string[] {
  return stockStepsOf(moves).return;
}

/**
 * Gives the stock consumed for these fulfilment moves back to on hand (stock's returnHolds for
 * their supplier locations), compensated by consuming it again if the change does not commit.
 */
export async function returnConsumedStock(ctx: ChangeContext, orderUuid: string, moves: readonly FulfilmentMove[]): Promise<void> {
  await returnStockAt(ctx, orderUuid, locationsGivingBack(moves));
}

async function returnStockAt(ctx: ChangeContext, orderUuid: string, codes: readonly string[]): Promise<void> {
  if (codes.length === 0) return;
  const returned = await askStock(() => ctx.unit.stock.returnHolds(orderUuid, codes));
  if (returned.length > 0) ctx.unit.onRollback(() => ctx.unit.stock.reconsumeHolds(orderUuid, returned));
}

/**
 * Releases the order's placed holds at these supplier locations (null: all), compensated by
 * placing exactly those holds again if the change does not commit.
 */
async function releaseHoldsAt(ctx: ChangeContext, orderUuid: string, codes: readonly string[] | null): Promise<void> {
  if (codes !== null && codes.length === 0) return;
  const released = await askStock(() => ctx.unit.stock.releaseHolds(orderUuid, codes));
  if (released.length > 0) ctx.unit.onRollback(() => ctx.unit.stock.reinstateHolds(orderUuid, released));
}

/**
 * Consumes the order's placed holds at these supplier locations (all: null), compensated by
 * placing exactly those holds again if the change does not commit: the order as committed still
 * holds them, and whatever it does next (a cancel releases placed holds, an amendment holds its
 * lines anew) counts on that.
 */
async function consumeHoldsAt(ctx: ChangeContext, orderUuid: string, codes: readonly string[] | null): Promise<void> {
  if (codes !== null && codes.length === 0) return;
  const consumed = await askStock(() => ctx.unit.stock.consumeHolds(orderUuid, codes));
  if (consumed.length > 0) ctx.unit.onRollback(() => ctx.unit.stock.unconsumeHolds(orderUuid, consumed));
}

/**
 * The stock side of fulfilments moving one by one (supplier progress; stockStepsOf): a sent one
 * cancelled gives its consumed stock back, a draft that ends unsent releases its location's holds,
 * a draft its supplier took consumes them. When no draft is left, saveOrder settles the order's
 * holds as a whole instead (settlementOf).
 */
export async function takeStockSteps(ctx: ChangeContext, order: Order, next: Order, moves: readonly FulfilmentMove[]): Promise<void> {
  const steps = stockStepsOf(moves);
  await returnStockAt(ctx, order.uuid, steps.return);
  // Without placed holds (stockHeld false) there is nothing to release or consume.
  if (!order.stockHeld || settlementOf(next) !== null) return;
  await releaseHoldsAt(ctx, order.uuid, steps.release);
  await consumeHoldsAt(ctx, order.uuid, steps.consume);
}

/**
 * Part of every change (saveOrder): an order that has no draft left, or has ended, holds no
 * stock any more, whichever path got it there (settlementOf): holds at the locations of
 * fulfilments that were sent are consumed, every other one released, and `stockHeld` is false.
 */
async function settleHolds(ctx: ChangeContext, next: Order): Promise<void> {
  const settlement = settlementOf(next);
  if (!settlement) return;
  await consumeHoldsAt(ctx, next.uuid, settlement.consume);
  await releaseHoldsAt(ctx, next.uuid, null);
  next.stockHeld = false;
}

/** Fulfilments as they are once written (drafts). */
export function asDraftFulfilments(built: ReturnType<typeof buildFulfilments>, at: Date): Fulfilment[] {
  return built.map((f) => ({ ...f, status: 'draft' as const, trackingDetails: [], createdAt: at, updatedAt: at }));
}

/**
 * What confirming needs before anything is held: lines, an address, a shipping method of the team
 * that serves it. 422 naming each field otherwise.
 */
async function confirmationChecks(ctx: ChangeContext, order: Order, shippingMethodCode: string | null | undefined): Promise<ShippingMethodChoice> {
  const violations: Violation[] = [];
  if (order.lines.length === 0) violations.push({ property: 'orderLines', message: 'An order needs at least one line to be confirmed.' });
  violations.push(...confirmationAddressViolations(order.shippingDetails));
  const choice = await teamMethodFor(ctx, order, shippingMethodCode);
  if (!choice.ok) violations.push(...choice.violations);
  if (violations.length > 0 || !choice.ok) throw Problem.validation(violations, 'The order cannot be confirmed as it is.');
  return choice.method;
}

/** The team's shipping method for the order's destination: the one named, or the preferred one. */
async function teamMethodFor(ctx: ChangeContext, order: Order, shippingMethodCode: string | null | undefined): Promise<ReturnType<typeof chooseShippingMethod>> {
  return chooseShippingMethod((await teamFactsOf(ctx, order.teamCode)).shippingMethods, shippingMethodCode, order.shippingDetails?.country?.code ?? null);
}

/**
 * Builds the fulfilments of an order that has none: holds stock for every line (all or nothing),
 * then one draft fulfilment per supplier location the stock was held in.
 */
async function ensureFulfilments(ctx: ChangeContext, order: Order, next: Order, shippingMethodCode: string | null | undefined): Promise<void> {
  if (order.fulfilments.length > 0) {
    if (shippingMethodCode !== null && shippingMethodCode !== undefined) await changeShippingMethod(ctx, order, next, shippingMethodCode);
    return;
  }
  const method = await confirmationChecks(ctx, order, shippingMethodCode);
  const outcome = await holdLines(ctx.unit.stock, order, order.lines);
  if (outcome.kind === 'short') throw stockShortProblem(order, outcome.shortages);
  undoHoldOnRollback(ctx, order.uuid, outcome);
  const at = next.updatedAt;
  const built = buildFulfilments(order.lines, outcome.lines as HeldLine[], { newUuid: () => newUuidOf(ctx.deps), method });
  await insertFulfilments(ctx.tx, order.uuid, built, at);
  next.fulfilments = asDraftFulfilments(built, at);
  next.stockHeld = true;
  next.shippingMethod = method;
}

/**
 * A shipping method named when the order has its fulfilments already (queueing, scheduling or
 * processing a queued or held order): checked as at confirmation (the team's, active, serving the
 * address) and taken by the order and its draft fulfilments; never ignored.
 */
async function changeShippingMethod(ctx: ChangeContext, order: Order, next: Order, shippingMethodCode: string): Promise<void> {
  const choice = await teamMethodFor(ctx, order, shippingMethodCode);
  if (!choice.ok) throw Problem.validation(choice.violations);
  if (order.shippingMethod?.code === choice.method.code && order.shippingMethod.name === choice.method.name) return;
  next.shippingMethod = choice.method;
  next.fulfilments = next.fulfilments.map((f) => (f.status === 'draft' ? { ...f, shippingMethod: choice.method, updatedAt: next.updatedAt } : f));
  setDraftFulfilmentsShippingMethod(ctx.tx, order.uuid, choice.method, next.updatedAt);
}

/**
 * Sends every draft fulfilment to its supplier: the holds are consumed (placed again if the change
 * does not commit; for a draft processed now, the hold's own undo, registered before and so run
 * after, then restores the holds the order had), the fulfilments are processing.
 */
async function sendFulfilments(ctx: ChangeContext, next: Order): Promise<void> {
  if (next.stockHeld) {
    await consumeHoldsAt(ctx, next.uuid, null);
    next.stockHeld = false;
  }
  moveFulfilments(ctx, next, (f) => (f.status === 'draft' ? 'processing' : null));
}

/** Changes fulfilment statuses in memory; saveOrder writes them with one event per fulfilment. */
export function moveFulfilments(ctx: ChangeContext, next: Order, to: (f: Fulfilment) => FulfilmentStatus | null): PendingFulfilmentChange[] {
  const changes: PendingFulfilmentChange[] = [];
  next.fulfilments = next.fulfilments.map((f) => {
    const status = to(f);
    if (status === null || status === f.status) return f;
    const moved = { ...f, status, updatedAt: next.updatedAt };
    changes.push({ uuid: f.uuid, status, from: f.status, f: moved });
    return moved;
  });
  ctx.pending.push(...changes);
  return changes;
}

/**
 * Carries out a `move` decision of the state machine on a locked order: fulfilments, holds,
 * timer, the order row, the status history and the events. Returns the order as it is now.
 * (Replacement and amendment do their own line work first and then call this.)
 */
export async function applyMove(
  ctx: ChangeContext,
  order: Order,
  decision: Extract<Decision, { kind: 'move' }>,
  opts: { shippingMethodCode?: string | null; scheduledAt?: Date | null; next?: Order } = {},
): Promise<Order> {
  const now = ctx.now;
  const next: Order = { ...(opts.next ?? order), status: decision.to, confirmedAt: decision.confirmedAt, updatedAt: now };
  if (opts.scheduledAt !== undefined) next.scheduledAt = opts.scheduledAt;

  switch (decision.fulfilments) {
    case 'ensure':
      await ensureFulfilments(ctx, order, next, opts.shippingMethodCode);
      break;
    case 'send':
      await ensureFulfilments(ctx, order, next, opts.shippingMethodCode);
      await sendFulfilments(ctx, next);
      break;
    case 'cancel-open': {
      const cancelled = moveFulfilments(ctx, next, (f) => (FINISHED_FULFILMENT_STATUSES.includes(f.status) ? null : 'cancelled'));
      // Sent and never dispatched: what was taken off hand for them is there again.
      await returnConsumedStock(
        ctx,
        order.uuid,
        cancelled.map((c) => ({ from: c.from, to: c.status, f: c.f })),
      );
      break;
    }
    case 'discard':
      // Back before confirmation: the fulfilments go, and the stock consumed for those sent comes back.
      await returnConsumedStock(
        ctx,
        order.uuid,
        next.fulfilments.map((f) => ({ from: f.status, to: 'discarded' as const, f })),
      );
      // A supplier that had one is told it is cancelled.
      for (const f of next.fulfilments) if (f.status !== 'draft' && !FINISHED_FULFILMENT_STATUSES.includes(f.status)) {
        ctx.unit.events.push(orderEvents.fulfilmentStatusChanged(next, f, f.status, 'cancelled'));
      }
      if (next.fulfilments.length > 0) await deleteFulfilments(ctx.tx, order.uuid);
      next.fulfilments = [];
      next.shippingMethod = null;
      break;
    case 'keep':
    case 'rebuild':
      break;
  }

  if (decision.holds === 'release') {
    await releaseHolds(ctx, order);
    next.stockHeld = false;
  }

  switch (decision.timer) {
    case 'countdown':
      next.fulfillableFrom = new Date(now.getTime() + ctx.deps.countdownSeconds * 1000);
      await setTimer(ctx.tx, order.uuid, 'countdown', next.fulfillableFrom);
      break;
    case 'schedule':
      next.fulfillableFrom = next.scheduledAt ?? now;
      await setTimer(ctx.tx, order.uuid, 'schedule', next.fulfillableFrom);
      break;
    case 'clear':
      if (decision.to === 'processing' || decision.to === 'draft') next.fulfillableFrom = now;
      await clearTimer(ctx.tx, order.uuid);
      break;
    case 'keep':
      break;
  }

  await saveOrder(ctx, order, next);
  return next;
}

/**
 * Writes the order row, pending fulfilment changes and the status history, and announces them in
 * cause-and-effect order: the fulfilments' changes, then `alongside` (e.g. their tracking), then
 * the order's status. An order left without drafts, or ended, gives up the stock it still holds first.
 */
export async function saveOrder(ctx: ChangeContext, before: Order, next: Order, alongside: OutgoingEvent[] = []): Promise<void> {
  await settleHolds(ctx, next);
  await updateOrder(ctx.tx, next);
  const changes = ctx.pending.splice(0);
  await setFulfilmentStatuses(ctx.tx, changes, next.updatedAt);
  for (const c of changes) ctx.unit.events.push(orderEvents.fulfilmentStatusChanged(next, c.f, c.from, c.status));
  ctx.unit.events.push(...alongside);
  if (before.status !== next.status) await recordStatusChange(ctx, next, before.status, next.status);
  // Unconfirmed without a status change (an address rejected while holding): the history still
  // says so, or reading it later (the confirmedAt backfill) would take the order as confirmed. That
  // holds for an order whose confirmedAt is null only because it predates confirmedAt: the
  // rejection is what tells the backfill its old confirmation no longer counts. No event: the
  // status did not change.
  else if (next.confirmedAt === null && (before.confirmedAt !== null || ctx.cause.trigger === 'reject-shipping-address')) {
    await recordStatusChange(ctx, next, before.status, next.status, false);
  }
}

/** A status history row, and (`announce`, for a change of status) its `order.status-changed`. */
export async function recordStatusChange(ctx: ChangeContext, order: Order, from: OrderStatus | null, to: OrderStatus, announce = true): Promise<void> {
  await insertStatusChange(ctx.tx, order.uuid, { from, to, at: order.updatedAt, actor: ctx.cause.actor, trigger: ctx.cause.trigger, reason: ctx.cause.reason ?? null });
  if (announce && from !== null) ctx.unit.events.push(orderEvents.statusChanged(order, from, to));
}

