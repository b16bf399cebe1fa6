import { actorOf, type Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { StockUnavailableError } from '../adapters/stock-client';
import { amendmentRefusal, diffLines, refusal, type AmendmentRefusal, type LineDiff } from '../domain/amendment';
import { derivesFromStock } from '../domain/fulfillability';
import { buildFulfilments, replacedFulfilments, type HeldLine, type ReplacedFulfilment } from '../domain/fulfilments';
import type { Order } from '../domain/model';
import { validateLines, type OrderLineInput } from '../domain/order-input';
import { decide } from '../domain/order-state-machine';
import { matchSkus } from '../domain/sku-matching';
import { isVisible, orderNotFound, scopeOf } from '../domain/visibility';
import { deleteFulfilments, insertFulfilments, lockAndLoadOrder, replaceLines, type Tx } from '../repositories/order-repository';
import { liveProductsBySku } from '../repositories/read-model-repository';
import { inTransaction, newUuidOf, type OrdersDeps } from './deps';
import { orderEvents } from './events';
import { requireActiveTeam } from './create-order';
import { stateOf } from './change-order';
import { followStock } from './stock-fulfillability';
import { applyMove, asDraftFulfilments, changeContext, releaseHolds, stockShortProblem, undoHoldOnRollback } from './transitions';

/** What `PUT .../lines` answers besides the order. */
export interface Amendment extends LineDiff {
  replacedFulfilments: ReplacedFulfilment[];
  countdownRestarted: boolean;
}

export interface AmendmentResult {
  order: Order;
  amendment: Amendment;
}

export function amendmentRefused(r: AmendmentRefusal, extra: Record<string, unknown> = {}): Problem {
  return new Problem('amendment-refused', { detail: r.detail, extensions: { reason: r.reason, merchantMessage: r.merchantMessage, ...extra } });
}

/**
 * `PUT .../lines` (rule O5): the complete wanted set of lines, matched on line number. Accepted
 * only while the order is draft, queued or scheduled and every fulfilment is still a draft. Stock
 * is held again for the new lines when the order holds stock; the fulfilments are rebuilt with new
 * uuids, each keeping the shipping method chosen at confirmation; a queued order gets a fresh
 * countdown, whether or not the lines differ from the order's. Only `order.revised` is written: an
 * amendment sends no webhook.
 *
 * A second change of the order while this one runs is refused with `being-rebuilt` rather than
 * waiting; a failure on our side (the stock service) is `unexpected-error`. Both are worth
 * retrying; the other reasons are not.
 */
export async function amendOrderLines(
  deps: OrdersDeps,
  identity: Identity,
  uuid: string,
  input: { orderLines: OrderLineInput[]; strictSkus?: boolean | null },
): Promise<AmendmentResult> {
  // A back-office caller's refusals name the mutation's argument (`input.orderLines[1].quantity`),
  // as all its others; a channel's (the REST edge's) name the REST fields it passes on.
  const prefix = identity.kind === 'backoffice' ? 'input.' : '';
  const lines = validateLines(input.orderLines ?? [], { requireLineNumbers: true, prefix });
  if (!lines.ok) throw Problem.validation(lines.violations);
  const scope = scopeOf(identity);
  try {
    return await inTransaction(deps, async (tx, unit) => {
      const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: 'amend' });
      const order = await lockAndLoadOrder(tx, uuid.toLowerCase(), { nowait: true });
      if (order === 'locked') {
        // Seen only when the order exists; an invisible one must not be told apart from a missing one.
        const visible = await lockFreeVisibility(tx, uuid, scope);
        if (!visible) throw orderNotFound();
        throw amendmentRefused(refusal('being-rebuilt', 'Another change of this order is in progress.'));
      }
      if (order === null || !isVisible(scope, order)) throw orderNotFound();
      await requireActiveTeam(tx, order.teamCode, identity);
      const refused = amendmentRefusal(stateOf(order), { fulfillableFrom: order.fulfillableFrom, now: ctx.now });
      if (refused) throw amendmentRefused(refused);

      const products = await liveProductsBySku(tx, order.teamCode, lines.value.map((l) => l.sku));
      // An order entered in the merchant application never drops a line (enterOrder is always strict).
      const matched = matchSkus(lines.value, products, input.strictSkus === true || order.origin === 'merchant-app', prefix);
      if (!matched.ok) throw Problem.validation(matched.violations, 'Some order lines name SKUs the team has no product for.');
      const wanted = matched.lines;
      // The same lines again are an amendment too (spec section 3: an accepted amendment rebuilds the
      // fulfilments with new uuids and gives a queued order a fresh countdown), not a no-op.
      const diff = diffLines(order.lines, wanted);

      const decision = decide(stateOf(order), 'amend', { now: ctx.now });
      if (decision.kind !== 'move') throw amendmentRefused(refusal('order-not-amendable', decision.kind === 'refused' ? decision.detail : 'Not amendable.'));
      const next: Order = { ...order, lines: wanted };
      let replaced: ReplacedFulfilment[] = [];
      if (wanted.length === 0 && order.fulfilments.length > 0) {
        throw amendmentRefused(refusal('order-not-amendable', 'A confirmed order keeps at least one line; cancel it instead.'));
      }
      if (wanted.length === 0 && order.stockHeld) {
        // A draft that reserved stock and is left with no lines holds nothing, as one that never reserved.
        await releaseHolds(ctx, order);
        next.stockHeld = false;
      } else if (order.stockHeld || order.fulfilments.length > 0) {
        const outcome = await unit.stock.holdStock({
          teamCode: order.teamCode,
          orderUuid: order.uuid,
          lines: wanted.map((l) => ({ lineNumber: l.lineNumber, productUuid: l.productUuid!, quantity: l.quantity })),
        });
        if (outcome.kind === 'short') {
          const short = stockShortProblem(next, outcome.shortages);
          throw amendmentRefused(refusal('stock-held', `The changed lines cannot be held: ${short.message}`), { shortSkus: short.extensions.shortSkus });
        }
        undoHoldOnRollback(ctx, order.uuid, outcome);
        next.stockHeld = true;
        if (order.fulfilments.length > 0) {
          const at = ctx.now;
          const built = buildFulfilments(wanted, outcome.lines as HeldLine[], { newUuid: () => newUuidOf(deps), method: order.shippingMethod, previous: order.fulfilments });
          await deleteFulfilments(tx, order.uuid);
          await insertFulfilments(tx, order.uuid, built, at);
          next.fulfilments = asDraftFulfilments(built, at);
          replaced = replacedFulfilments(order.fulfilments, built);
        }
      }
      await replaceLines(tx, order.uuid, wanted);
      // Derived for the new lines; announced only by order.revised (rule O5: an amend sends no webhook).
      if (derivesFromStock(next)) next.fulfillableStatus = await followStock(tx, next, wanted);
      const saved = await applyMove(ctx, order, decision, { next });
      unit.events.push(orderEvents.revised(saved, 'amended'));
      return {
        order: saved,
        amendment: { ...diff, replacedFulfilments: replaced, countdownRestarted: decision.timer === 'countdown' },
      };
    });
  } catch (err) {
    // `unavailable` (the order's stock is being put right after an interrupted change) is a
    // temporary failure on our side: rule O5's unexpected-error, with its own detail.
    if (err instanceof Problem && err.problemType === 'unavailable') throw amendmentRefused(refusal('unexpected-error', err.message));
    if (err instanceof Problem) throw err;
    if (err instanceof StockUnavailableError && err.callUnknown) {
      // Stock answered, but does not know the call: releases out of step, for an operator to see.
      deps.logger.error({ err, orderUuid: uuid }, 'amendment refused: the stock service does not know the call (releases out of step)');
      throw amendmentRefused(refusal('unexpected-error', 'The stock service cannot take this change yet (a release is under way); nothing was changed.'));
    }
    if (err instanceof StockUnavailableError) {
      // Not a bug of ours: the stock service was out of reach or slow, or a later change won.
      deps.logger.warn({ err, orderUuid: uuid, nothingDone: err.nothingDone }, 'amendment refused: the stock service did not answer');
      const detail = err.fencedOut
        ? 'A later change of the order took over its stock meanwhile; nothing was changed.'
        : err.nothingDone
          ? 'The stock service could not be reached; nothing was changed.'
          : 'The stock service did not answer; the order was not changed, and any stock the unanswered call still takes is given back.';
      throw amendmentRefused(refusal('unexpected-error', detail));
    }
    const reference = newUuidOf(deps);
    deps.logger.error({ err, reference, orderUuid: uuid }, 'amendment failed unexpectedly');
    throw amendmentRefused(refusal('unexpected-error', `The amendment failed on our side (reference ${reference}); nothing was changed.`));
  }
}

/** Whether the caller may see the order, read without waiting for its row lock. */
async function lockFreeVisibility(tx: Tx, uuid: string, scope: ReturnType<typeof scopeOf>): Promise<boolean> {
  const { rows } = await tx.query<{ team_code: string; channel_id: string; origin: Order['origin'] }>(
    `SELECT team_code, channel_id, origin FROM orders.orders WHERE uuid = $1::uuid`,
    [uuid.toLowerCase()],
  );
  const r = rows[0];
  return r ? isVisible(scope, { teamCode: r.team_code, channelId: r.channel_id, origin: r.origin }) : false;
}
