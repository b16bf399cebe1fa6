import { read, type Queryable } from '@pf/platform/db/transaction';
import { actorOf, type Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import type { Order, ShippingMethodChoice } from '../domain/model';
import type { TrackingDetailInput } from '../domain/tracking';
import { needsTeamMethods, validateTracking, withShippingMethod, withTrackingAdded, type NewTracking } from '../domain/tracking';
import { reasonViolations } from '../domain/order-input';
import {
  acceptsSupplierProgress,
  deriveFromFulfilments,
  isFulfilmentStatus,
  mayMoveFulfilment,
  SUPPLIER_PROGRESS,
  type FulfilmentStatus,
} from '../domain/order-state-machine';
import { isVisible, orderNotFound, requireMerchant, scopeOf } from '../domain/visibility';
import { insertTracking, lockOrderOfFulfilment } from '../repositories/order-repository';
import { shippingMethodsRead } from '../repositories/read-model-repository';
import { inTransaction, type OrdersDeps } from './deps';
import { orderEvents } from './events';
import { stateForbids } from './change-order';
import { changeContext, moveFulfilments, saveOrder, takeStockSteps } from './transitions';

/**
 * `fulfilment.tracking-created` (webhook `fulfilment-tracking-created`): its
 * `currentTrackingDetails` are every tracking detail the fulfilment has now, the new ones last.
 */
function trackingCreated(next: Order, fulfilmentUuid: string) {
  const fulfilment = next.fulfilments.find((f) => f.uuid === fulfilmentUuid)!;
  return orderEvents.trackingCreated(next, fulfilmentUuid, fulfilment.trackingDetails);
}

/** The team's shipping methods when `withShippingMethod` needs them for these details, else none (no read). */
async function teamMethodsFor(tx: Queryable, teamCode: string, details: readonly NewTracking[]): Promise<ShippingMethodChoice[]> {
  return needsTeamMethods(details) ? read(tx, shippingMethodsRead(teamCode)) : [];
}

function fulfilmentNotFound(): Problem {
  return Problem.notFound('This fulfilment could not be found.');
}

/**
 * Back-office or supplier: a fulfilment's progress (dispatched with tracking, back-order, failed,
 * returned, cancelled, invalid, processing again). One `fulfilment.status-changed` with the
 * fulfilment's SKUs, one `fulfilment.tracking-created` when tracking came with it, and the order's
 * status follows (section 3's final statuses) with its own event. The fulfilment's stock follows
 * (stockStepOf): a sent one the supplier cancels gives its consumed stock back to on hand, a draft
 * cancelled releases its holds, a draft the supplier takes consumes them; an order that ends here
 * gives up whatever it still holds (saveOrder).
 */
export async function recordFulfilmentProgress(
  deps: OrdersDeps,
  identity: Identity,
  fulfilmentUuid: string,
  input: { status: string; trackingDetails?: TrackingDetailInput[] | null; reason?: string | null },
): Promise<Order> {
  requireMerchant(identity);
  const invalid = [
    ...(!isFulfilmentStatus(input.status) || !SUPPLIER_PROGRESS.includes(input.status) ? [{ property: 'input.status', message: `One of ${SUPPLIER_PROGRESS.join(', ')}.` }] : []),
    ...reasonViolations(input.reason, 'input.reason'),
  ];
  if (invalid.length > 0) throw Problem.validation(invalid);
  const to = input.status as FulfilmentStatus;
  const tracking = validateTracking(input.trackingDetails ?? [], 'input.trackingDetails');
  const scope = scopeOf(identity);
  return inTransaction(deps, async (tx, unit) => {
    const order = await lockOrderOfFulfilment(tx, fulfilmentUuid.toLowerCase());
    if (!order || !isVisible(scope, order)) throw fulfilmentNotFound();
    const fulfilment = order.fulfilments.find((f) => f.uuid === fulfilmentUuid.toLowerCase())!;
    if (!acceptsSupplierProgress(order.status)) throw stateForbids(`The order has not been sent to its suppliers, or is finished (status ${order.status}).`);
    if (fulfilment.status !== to && !mayMoveFulfilment(fulfilment.status, to)) {
      throw stateForbids(`A fulfilment cannot go from ${fulfilment.status} to ${to}.`);
    }
    if (fulfilment.status === to && tracking.length === 0) return order;
    const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: `fulfilment-${to}`, reason: input.reason ?? null });
    const now = ctx.now;
    const next: Order = { ...order, updatedAt: now };
    const moved = moveFulfilments(ctx, next, (f) => (f.uuid === fulfilment.uuid ? to : null));
    // Its stock follows: back on hand when it was sent and is cancelled before dispatch; released
    // when it was a draft that ends unsent; consumed when the supplier took a draft.
    await takeStockSteps(
      ctx,
      order,
      next,
      moved.map((c) => ({ from: c.from, to: c.status, f: c.f })),
    );
    next.status = deriveFromFulfilments(order.status, next.fulfilments.map((f) => f.status));
    const added = withShippingMethod(tracking, fulfilment.shippingMethod, await teamMethodsFor(tx, order.teamCode, tracking));
    if (added.length > 0) {
      await insertTracking(tx, fulfilment.uuid, added, now);
      next.fulfilments = next.fulfilments.map((f) => (f.uuid === fulfilment.uuid ? withTrackingAdded(f, added, now) : f));
    }
    await saveOrder(ctx, order, next, added.length > 0 ? [trackingCreated(next, fulfilment.uuid)] : []);
    return next;
  });
}

/** Back-office or supplier: tracking details added to a fulfilment that was sent; one `fulfilment.tracking-created`. */
export async function addFulfilmentTracking(deps: OrdersDeps, identity: Identity, fulfilmentUuid: string, details: TrackingDetailInput[]): Promise<Order> {
  requireMerchant(identity);
  if (details.length === 0) throw Problem.validation([{ property: 'trackingDetails', message: 'At least one tracking detail.' }]);
  const tracking = validateTracking(details, 'trackingDetails');
  const scope = scopeOf(identity);
  return inTransaction(deps, async (tx, unit) => {
    const order = await lockOrderOfFulfilment(tx, fulfilmentUuid.toLowerCase());
    if (!order || !isVisible(scope, order)) throw fulfilmentNotFound();
    const fulfilment = order.fulfilments.find((f) => f.uuid === fulfilmentUuid.toLowerCase())!;
    if (!['processing', 'back-order', 'dispatched'].includes(fulfilment.status)) {
      throw stateForbids(`Tracking is added to a fulfilment that was sent (this one is ${fulfilment.status}).`);
    }
    const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: 'tracking' });
    const now = ctx.now;
    const added = withShippingMethod(tracking, fulfilment.shippingMethod, await teamMethodsFor(tx, order.teamCode, tracking));
    await insertTracking(tx, fulfilment.uuid, added, now);
    const next: Order = {
      ...order,
      updatedAt: now,
      fulfilments: order.fulfilments.map((f) => (f.uuid === fulfilment.uuid ? withTrackingAdded(f, added, now) : f)),
    };
    await saveOrder(ctx, order, next);
    unit.events.push(trackingCreated(next, fulfilment.uuid));
    return next;
  });
}
