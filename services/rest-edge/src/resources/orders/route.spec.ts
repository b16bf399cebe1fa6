import { Problem } from '@pf/platform/problems';
import type { ResourceRequest, UpstreamCall } from '../resource';
import { EDGE_CREATE_ORDER, EDGE_ORDER, EDGE_REPLAYED_ORDER, type OrderFields } from './operation';
import { createOrder } from './route';

const UUID = '0f8c2d5e-3b7a-4c1d-9e6f-5a4b3c2d1e0f';

function order(status: string, version: number, confirmedAt: string | null = '2026-10-20T10:00:00.000Z'): OrderFields {
  return {
    uuid: UUID,
    orderNumber: '1001',
    printTrailOrderNumber: 'PT-ABCDEFGHJKLM',
    status,
    fulfillableStatus: 'fulfillable',
    fulfillableFrom: '2026-10-20T10:15:00.000Z',
    scheduledAt: null,
    confirmedAt,
    createdAt: '2026-10-20T09:00:00.000Z',
    updatedAt: '2026-10-20T10:00:00.000Z',
    version,
    stockHeld: false,
    shippingDetails: null,
    orderLines: [],
    fulfilments: [],
    trackingDetails: [],
  } as unknown as OrderFields;
}

const replay = (type: 'order-already-confirmed' | 'order-not-updatable', status: string, version: number) =>
  new Problem(type, { detail: `Order 1001 (status ${status})`, extensions: { orderUuid: UUID, orderStatus: status, orderVersion: version } });

/** An orders service answering each create and each read from its script, in turn. */
function scripted(creates: (OrderFields | Problem)[], reads: OrderFields[]): { call: UpstreamCall; creates: number } {
  const calls = { creates: 0 };
  const call = (async (operation: unknown) => {
    if (operation === EDGE_CREATE_ORDER) {
      const answer = creates[calls.creates++]!;
      if (answer instanceof Problem) throw answer;
      return { createOrder: answer };
    }
    if (operation === EDGE_REPLAYED_ORDER) return { order: reads.shift() };
    if (operation === EDGE_ORDER) {
      const { version: _, ...unversioned } = reads.shift() as OrderFields & { version: number };
      return { order: unversioned };
    }
    throw new Error('unexpected operation');
  }) as UpstreamCall;
  return Object.assign(calls, { call });
}

const request = (orders: UpstreamCall) => ({ body: { orderNumber: '1001', orderLines: [] }, orders }) as unknown as ResourceRequest;

async function refusal(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof Problem) return err;
    throw err;
  }
  throw new Error('expected a problem');
}

describe('POST /orders: a replay 409 never contradicts itself', () => {
  it('answers the order it decided on, orderStatus and data from one read', async () => {
    const orders = scripted([replay('order-already-confirmed', 'queued', 3)], [order('queued', 3)]);
    const problem = await refusal(createOrder.handle(request(orders.call)));
    expect(problem.problemType).toBe('order-already-confirmed');
    expect(problem.extensions).toMatchObject({ orderUuid: UUID, orderStatus: 'queued', data: { status: 'queued' } });
    // The service's own bookkeeping is not the client's.
    expect(Object.keys(problem.extensions).sort()).toEqual(['data', 'orderStatus', 'orderUuid']);
  });

  it('an orders service that names no version (the release before) is answered with its read, as then', async () => {
    const unversioned = new Problem('order-already-confirmed', { detail: 'Order 1001 (status queued)', extensions: { orderUuid: UUID, orderStatus: 'queued' } });
    const orders = scripted([unversioned], [order('queued', 7)]);
    const problem = await refusal(createOrder.handle(request(orders.call)));
    expect([problem.problemType, problem.extensions.orderStatus, orders.creates]).toEqual(['order-already-confirmed', 'queued', 1]);
  });

  it('an order cancelled between the decision and the read is decided again: order-not-updatable, cancelled', async () => {
    const orders = scripted([replay('order-already-confirmed', 'queued', 3), replay('order-not-updatable', 'cancelled', 4)], [order('cancelled', 4), order('cancelled', 4)]);
    const problem = await refusal(createOrder.handle(request(orders.call)));
    expect([problem.problemType, problem.extensions.orderStatus, (problem.extensions.data as { status: string }).status]).toEqual(['order-not-updatable', 'cancelled', 'cancelled']);
    expect(orders.creates).toBe(2);
  });

  it('an order saved as draft meanwhile is replaced, as rule O2 says of a draft: 201', async () => {
    const orders = scripted([replay('order-already-confirmed', 'queued', 3), order('draft', 5, null)], [order('draft', 4, null)]);
    const answer = await createOrder.handle(request(orders.call));
    expect(answer).toMatchObject({ status: 201, body: { status: 'draft', confirmedAt: null } });
  });

  it('an order changing under every attempt is the platform\'s failure (500), never a contradictory 409', async () => {
    const creates = Array.from({ length: 5 }, (_, i) => replay('order-already-confirmed', 'queued', 10 + i));
    const orders = scripted(creates, Array.from({ length: 5 }, (_, i) => order('cancelled', 20 + i)));
    await expect(createOrder.handle(request(orders.call))).rejects.toThrow(/changed under 5 replays/);
  });
});
