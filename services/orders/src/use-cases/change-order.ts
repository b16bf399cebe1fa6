import { actorOf, teamActiveClaim, type Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import type { Order } from '../domain/model';
import { parseInstant, reasonViolations, validateShippingDetails, type ShippingDetailsInput } from '../domain/order-input';
import { decide, FULFILLABLE_STATUSES, isFinished, type FulfillableStatus, type OrderState, type OrderTrigger } from '../domain/order-state-machine';
import { isVisible, orderNotFound, requireMerchant, scopeOf } from '../domain/visibility';
import { noRead } from '@pf/platform/db/transaction';
import { lockAndLoadRead, updateOrder } from '../repositories/order-repository';
import { teamFactsRead } from '../repositories/read-model-repository';
import { inTransaction, nowOf, type OrdersDeps } from './deps';
import { orderEvents } from './events';
import { replaceOrder, teamInactive } from './create-order';
import { afterStockMove } from './stock-fulfillability';
import { applyMove, changeContext, teamFactsOf, type ChangeContext } from './transitions';

export function stateOf(order: Order): OrderState {
  return { status: order.status, confirmedAt: order.confirmedAt, fulfilmentStatuses: order.fulfilments.map((f) => f.status) };
}

export function stateForbids(detail: string): Problem {
  return new Problem('order-state-forbids', { detail });
}

/**
 * Runs a change on one order the caller may see (rule O1: anything else is the same not-found
 * as a uuid that does not exist, and stays unchanged), with the order's row locked for the whole
 * transaction, so concurrent changes of one order run one after the other.
 */
export async function changeVisibleOrder<R>(
  deps: OrdersDeps,
  identity: Identity,
  uuid: string,
  trigger: string,
  work: (ctx: ChangeContext, order: Order) => Promise<R>,
  opts: { reason?: string | null; readTeam?: boolean } = {},
): Promise<R> {
  const scope = scopeOf(identity);
  // `readTeam`: the caller's team (activity, shipping methods) read in the same round trip as the order.
  const teamCode = opts.readTeam && scope.kind !== 'all' ? scope.teamCode : null;
  return inTransaction(deps, async (tx, unit) => {
    const [order, team] = await tx.reads([lockAndLoadRead(uuid.toLowerCase()), teamCode ? teamFactsRead(teamCode) : noRead(undefined)]);
    if (order === null || !isVisible(scope, order)) throw orderNotFound();
    const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger, reason: opts.reason ?? null });
    ctx.team = team;
    return work(ctx, order);
  });
}

/**
 * 403 when the order's team is known to be inactive (as requireActiveTeam: the edge's finding for
 * a channel caller, else the change's team facts).
 */
async function requireActiveTeamOf(ctx: ChangeContext, order: Order, identity: Identity): Promise<void> {
  const active = teamActiveClaim(identity) ?? (await teamFactsOf(ctx, order.teamCode)).active;
  if (active === false) throw teamInactive(order.teamCode);
}

/**
 * `PUT .../confirm`: a draft is confirmed (fulfilments built, stock held, queued or scheduled);
 * an order already confirmed comes back unchanged, even for an inactive team; otherwise an
 * inactive team is refused before anything changes.
 */
export async function confirmOrder(deps: OrdersDeps, identity: Identity, uuid: string, input: { shippingMethodCode?: string | null } = {}): Promise<Order> {
  return changeVisibleOrder(deps, identity, uuid, 'confirm', async (ctx, order) => {
    const decision = decide(stateOf(order), 'confirm', { now: ctx.now, scheduledAt: order.scheduledAt });
    if (decision.kind === 'unchanged') return order;
    await requireActiveTeamOf(ctx, order, identity);
    if (decision.kind === 'refused') throw stateForbids(`The order cannot be confirmed: ${decision.detail}`);
    // A scheduledAt already past confirms to the queue: the order is not scheduled, so it reads null.
    const unscheduled = decision.to !== 'scheduled' && order.scheduledAt !== null;
    return afterStockMove(
      ctx,
      order,
      await applyMove(ctx, order, decision, { shippingMethodCode: input.shippingMethodCode ?? null, ...(unscheduled ? { scheduledAt: null } : {}) }),
    );
  }, { readTeam: true });
}

/** `PUT .../cancel`, `DELETE /orders/{uuid}`: while nothing is dispatched; holds released; confirmedAt kept. Any team state. */
export async function cancelOrder(deps: OrdersDeps, identity: Identity, uuid: string): Promise<Order> {
  return changeVisibleOrder(deps, identity, uuid, 'cancel', async (ctx, order) => {
    const decision = decide(stateOf(order), 'cancel', { now: ctx.now });
    if (decision.kind !== 'move') throw stateForbids(`The order cannot be cancelled (status ${order.status}). ${decision.kind === 'refused' ? decision.detail : ''}`.trim());
    return afterStockMove(ctx, order, await applyMove(ctx, order, decision));
  });
}

/** The merchant actions on an existing order, each a trigger of the state machine. */
export type MerchantAction = Extract<OrderTrigger, 'save-as-draft' | 'reject-shipping-address' | 'not-sent' | 'queue' | 'schedule' | 'process-now'>;

/** Actions that confirm the order when needed: refused for an inactive team, like `PUT .../confirm`. */
const CONFIRMING: readonly MerchantAction[] = ['queue', 'schedule', 'process-now'];

/**
 * Back-office: take out of the queue / save as draft, reject the shipping address, mark as not
 * sent, queue, schedule, process now. Each is one row of the state machine; anything else is
 * `order-state-forbids`.
 */
export async function merchantAction(
  deps: OrdersDeps,
  identity: Identity,
  uuid: string,
  action: MerchantAction,
  opts: { reason?: string | null; shippingMethodCode?: string | null; scheduledAt?: string | null } = {},
): Promise<Order> {
  requireMerchant(identity);
  const invalidReason = reasonViolations(opts.reason);
  if (invalidReason.length > 0) throw Problem.validation(invalidReason);
  let scheduledAt: Date | undefined;
  if (action === 'schedule') {
    const parsed = parseInstant(opts.scheduledAt ?? '', 'scheduledAt');
    if (!parsed.ok) throw Problem.validation(parsed.violations);
    // A time already past is the input's fault, whatever the order's state.
    if (parsed.value.getTime() <= nowOf(deps).getTime()) throw Problem.validation([{ property: 'scheduledAt', message: 'Must be in the future.' }]);
    scheduledAt = parsed.value;
  }
  return changeVisibleOrder(
    deps,
    identity,
    uuid,
    action,
    async (ctx, order) => {
      if (CONFIRMING.includes(action)) await requireActiveTeamOf(ctx, order, identity);
      const decision = decide(stateOf(order), action, { now: ctx.now, scheduledAt: scheduledAt ?? order.scheduledAt });
      if (decision.kind !== 'move') throw stateForbids(decision.kind === 'refused' ? decision.detail : `Nothing to do (${action}).`);
      // Queueing or processing now abandons a schedule (ahead, or already past): the order is no longer scheduled.
      const abandoned = (action === 'queue' || action === 'process-now') && order.scheduledAt !== null;
      const moved = await applyMove(ctx, order, decision, {
        shippingMethodCode: opts.shippingMethodCode ?? null,
        ...(scheduledAt ? { scheduledAt } : abandoned ? { scheduledAt: null } : {}),
      });
      return afterStockMove(ctx, order, moved);
    },
    { reason: opts.reason ?? null, readTeam: CONFIRMING.includes(action) },
  );
}

/** Back-office or supplier: the order's fulfillable status changed; one event when it did. */
export async function setFulfillableStatus(deps: OrdersDeps, identity: Identity, uuid: string, value: string, reason?: string | null): Promise<Order> {
  requireMerchant(identity);
  const invalid: Violation[] = [
    ...(!(FULFILLABLE_STATUSES as readonly string[]).includes(value) ? [{ property: 'fulfillableStatus', message: `One of ${FULFILLABLE_STATUSES.join(', ')}.` }] : []),
    ...reasonViolations(reason),
  ];
  if (invalid.length > 0) throw Problem.validation(invalid);
  return changeVisibleOrder(
    deps,
    identity,
    uuid,
    'fulfillable-status',
    async (ctx, order) => {
      if (order.fulfillableStatus === value) return order;
      if (isFinished(order.status)) throw stateForbids(`The order is finished (status ${order.status}).`);
      const next: Order = { ...order, fulfillableStatus: value as FulfillableStatus, updatedAt: ctx.now };
      await updateOrder(ctx.tx, next);
      ctx.unit.events.push(orderEvents.fulfillableStatusChanged(next, order.fulfillableStatus, next.fulfillableStatus));
      return next;
    },
    { reason: reason ?? null },
  );
}

/**
 * Back-office: corrects the shipping details of an order of any origin that is a draft or holding
 * unconfirmed (its address rejected): what a shop integration does by sending the order again
 * (section 3: "fix the address by sending the order again, then confirm"), for orders entered in
 * the merchant application or imported, which nothing sends again. The order becomes (or stays) a
 * draft with its lines, holds and schedule as they were, to be queued or confirmed again; the
 * events are a replay's. Any other state: `order-state-forbids`.
 */
export async function correctShippingDetails(deps: OrdersDeps, identity: Identity, uuid: string, input: ShippingDetailsInput): Promise<Order> {
  requireMerchant(identity);
  const details = validateShippingDetails(input);
  if (!details.ok) throw Problem.validation(details.violations);
  return changeVisibleOrder(deps, identity, uuid, 'replace', async (ctx, order) => {
    const decision = decide(stateOf(order), 'replace', { now: ctx.now });
    if (decision.kind !== 'move') {
      throw stateForbids(`Shipping details are corrected on a draft or on an order holding because its address was rejected (this one is ${order.status}).`);
    }
    const wanted = {
      orderNumber: order.orderNumber,
      printTrailOrderNumber: null,
      lines: order.lines.map((l, index) => ({ index, lineNumber: l.lineNumber, sku: l.sku, quantity: l.quantity })),
      shippingDetails: details.value,
      scheduledAt: order.scheduledAt,
      strictSkus: false,
      reserve: order.stockHeld,
    };
    return replaceOrder(ctx, order, wanted, order.lines);
  });
}
