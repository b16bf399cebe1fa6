import { decide } from '../domain/order-state-machine';
import { clearTimer, lockAndLoadOrder } from '../repositories/order-repository';
import { currentTimer, type ClaimedTimer } from '../repositories/timer-repository';
import { inTransaction, type OrdersDeps } from './deps';
import { stateOf } from './change-order';
import { applyMove, changeContext } from './transitions';

export type TimerOutcome = 'moved' | 'stale';

/**
 * A claimed timer is due: a queued order's countdown ended, or a scheduled order's time came; the
 * order goes to processing (fulfilments sent, holds consumed). Runs under the order's row lock and
 * only while the timer row is still this worker's claim with the same due time, so a lease taken
 * over by another replica, or an order changed meanwhile (amended, cancelled, taken out of the
 * queue), never moves twice. A timer whose order can no longer move is dropped.
 */
export async function fireTimer(deps: OrdersDeps, timer: ClaimedTimer, workerId: string, opts: { giveUp?: boolean } = {}): Promise<TimerOutcome> {
  return inTransaction(deps, async (tx, unit) => {
    const order = await lockAndLoadOrder(tx, timer.orderUuid);
    const row = await currentTimer(tx, timer.orderUuid);
    if (!row || row.claimedBy !== workerId || row.kind !== timer.kind || row.dueAt.getTime() !== timer.dueAt.getTime()) return 'stale';
    if (order === null || order === 'locked') return 'stale';
    const trigger = opts.giveUp ? 'processing-failed' : timer.kind === 'countdown' ? 'countdown-ended' : 'schedule-due';
    const reason = opts.giveUp ? 'The order could not be sent to its suppliers.' : null;
    const ctx = changeContext(deps, tx, unit, { actor: 'timer', trigger, reason });
    const decision = decide(stateOf(order), trigger, { now: ctx.now });
    if (decision.kind !== 'move') {
      await clearTimer(tx, order.uuid);
      return 'stale';
    }
    await applyMove(ctx, order, decision);
    return 'moved';
  });
}
