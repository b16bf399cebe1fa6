import {
  CONFIRM_ORDER,
  CREATE_ORDER,
  NOT_SENT,
  PROCESS_NOW,
  PROGRESS,
  REJECT_ADDRESS,
  CANCEL_ORDER,
  orderInput,
  type OrdersSystem,
  type TeamFixture,
} from './harness';

/** An order as the tests read it back. */
export type TestOrder = Record<string, any> & { uuid: string; status: string; fulfilments: { uuid: string; status: string }[] };

export const REACHABLE = [
  'draft',
  'holding-unconfirmed',
  'queued',
  'scheduled',
  'processing',
  'holding',
  'back-order',
  'error',
  'complete',
  'cancelled',
  'failed',
  'returned',
  'partial',
  'invalid',
] as const;
export type Reachable = (typeof REACHABLE)[number];

/**
 * Brings a new API order (lines SKU-A from leeds and SKU-C from berlin: two fulfilments) into a
 * state through the real operations: create, confirm, merchant actions, supplier progress. Only
 * `error` (a send that keeps failing) and `returned` (no operation sets it) are written directly.
 */
export async function orderInState(s: OrdersSystem, t: TeamFixture, state: Reachable, orderNumber: string): Promise<TestOrder> {
  const future = new Date(Date.now() + 3600_000).toISOString();
  const input = orderInput(orderNumber, [['SKU-A', 1], ['SKU-C', 1]], state === 'scheduled' ? { scheduledAt: future } : {});
  const created: TestOrder = (await s.ok<any>(t.shop, CREATE_ORDER, { input })).createOrder;
  if (state === 'draft') return created;
  if (state === 'holding-unconfirmed') return (await s.ok<any>(t.backOffice, REJECT_ADDRESS, { uuid: created.uuid, reason: 'no such street' })).rejectShippingAddress;
  if (state === 'cancelled') return (await s.ok<any>(t.shop, CANCEL_ORDER, { uuid: created.uuid })).cancelOrder;
  const confirmed: TestOrder = (await s.ok<any>(t.shop, CONFIRM_ORDER, { uuid: created.uuid })).confirmOrder;
  if (state === 'queued' || state === 'scheduled') return confirmed;
  if (state === 'holding') return (await s.ok<any>(t.backOffice, NOT_SENT, { uuid: created.uuid, reason: 'printer down' })).markOrderNotSent;
  if (state === 'error') {
    await s.pool.query(`UPDATE orders.orders SET status = 'error' WHERE uuid = $1`, [created.uuid]);
    return { ...confirmed, status: 'error' };
  }
  const processing: TestOrder = (await s.ok<any>(t.backOffice, PROCESS_NOW, { uuid: created.uuid })).processOrderNow;
  if (state === 'processing') return processing;
  const [f1, f2] = processing.fulfilments;
  const progress = async (f: { uuid: string }, status: string, extra: Record<string, unknown> = {}) =>
    (await s.ok<any>(t.backOffice, PROGRESS, { fulfilmentUuid: f.uuid, input: { status, ...extra } })).recordFulfilmentProgress as TestOrder;
  const tracking = { trackingDetails: [{ carrier: 'Royal Mail', trackingNumber: 'RM1', trackingUrl: 'https://track.example/RM1', methodCode: 'std', methodName: 'Standard' }] };
  switch (state) {
    case 'back-order':
      return progress(f1!, 'back-order');
    case 'invalid':
      return progress(f1!, 'invalid');
    case 'complete':
      await progress(f1!, 'dispatched', tracking);
      return progress(f2!, 'dispatched', tracking);
    case 'failed':
      await progress(f1!, 'failed');
      return progress(f2!, 'cancelled');
    case 'partial':
      await progress(f1!, 'dispatched', tracking);
      return progress(f2!, 'failed');
    case 'returned': {
      // No operation reaches it since the final statuses follow section 3 (a parcel that came back
      // makes an order partial or failed): an order recorded as returned before, written directly.
      await progress(f1!, 'dispatched', tracking);
      const complete = await progress(f2!, 'dispatched', tracking);
      await s.pool.query(`UPDATE orders.orders SET status = 'returned' WHERE uuid = $1`, [created.uuid]);
      return { ...complete, status: 'returned' };
    }
  }
  throw new Error(`unreachable state ${state}`);
}

/** The status an order of each reachable state reads. */
export function statusOf(state: Reachable): string {
  return state === 'holding-unconfirmed' ? 'holding' : state;
}
