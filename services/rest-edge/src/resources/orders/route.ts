import { Problem } from '@pf/platform/problems';
import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute, UpstreamCall } from '../resource';
import { paginate, pageUrls } from '../../domain/pagination';
import { isUuid } from '../../domain/uuid';
import { nextOrderCursor } from '../../domain/order-cursor';
import { parseListOrdersQuery } from './list-query';
import {
  toAmendment,
  toAmendOrderLinesInput,
  toCreateOrderInput,
  toOrderResource,
  type AmendOrderLinesBody,
  type CreateOrderBody,
} from './mapper';
import { EDGE_AMEND_ORDER_LINES, EDGE_CANCEL_ORDER, EDGE_CONFIRM_ORDER, EDGE_CREATE_ORDER, EDGE_ORDER, EDGE_ORDERS, EDGE_REPLAYED_ORDER } from './operation';

/**
 * Rule O1: every order a channel may not see answers this one body, the orders service's own
 * words for a uuid that names no order. The edge gives it itself for a path value that is not a
 * uuid, so that too is indistinguishable.
 */
export const ORDER_NOT_FOUND_DETAIL = 'This order could not be found.';

function orderUuidOf(params: Record<string, string>): string {
  const uuid = params.orderUuid ?? '';
  if (!isUuid(uuid)) throw Problem.notFound(ORDER_NOT_FOUND_DETAIL);
  return uuid.toLowerCase();
}

/** The replay 409s of rule O2 (the orders service names the order; the edge adds it as `data`). */
const REPLAY_PROBLEMS: ReadonlySet<string> = new Set(['order-already-confirmed', 'order-not-updatable']);

/** How many times a create whose replay 409 names an order that changed meanwhile is sent again. */
const REPLAY_ATTEMPTS = 5;

/**
 * A replay 409 carries the full existing order in REST shape. The orders service names it by
 * `orderUuid` and `orderVersion` (the order it decided on, under its lock); it is read again
 * here, through the same channel identity (it is an API order of this channel: that is how the
 * replay found it). Null when the order changed in between (cancelled, saved as draft, ...): the
 * 409's type was decided on what it was, and answering it with what it is now would contradict
 * itself (`order-already-confirmed` for a cancelled order, or for a draft the replay replaces);
 * the create is then sent again and decided anew.
 */
async function withExistingOrder(problem: Problem, orders: UpstreamCall): Promise<Problem | null> {
  const uuid = problem.extensions.orderUuid;
  if (typeof uuid !== 'string') throw new Error(`The orders service answered ${problem.problemType} without orderUuid`);
  const decidedOn = problem.extensions.orderVersion;
  // An orders service of the release before (rolled back alone) names no version and has no
  // Order.version to ask for: its read is the answer, as then.
  const { order } = typeof decidedOn === 'number' ? await orders(EDGE_REPLAYED_ORDER, { uuid }) : await orders(EDGE_ORDER, { uuid });
  if (!order) throw new Error(`The order ${uuid} of a ${problem.problemType} answer could not be read`);
  if ('version' in order && order.version !== decidedOn) return null;
  return new Problem(problem.problemType, {
    detail: problem.message,
    extensions: { orderUuid: order.uuid, orderStatus: order.status, data: toOrderResource(order) },
  });
}

export const createOrder: ResourceRoute = {
  method: 'POST',
  path: '/orders',
  operationId: 'createOrder',
  access: CHANNEL_SCOPED,
  async handle({ body, orders }) {
    const input = toCreateOrderInput(body as CreateOrderBody);
    for (let attempt = 1; ; attempt++) {
      try {
        const { createOrder: order } = await orders(EDGE_CREATE_ORDER, { input });
        // The one order response not wrapped in `data` (spec section 2).
        return { status: 201, body: toOrderResource(order) };
      } catch (err) {
        if (!(err instanceof Problem && REPLAY_PROBLEMS.has(err.problemType))) throw err;
        const answer = await withExistingOrder(err, orders);
        if (answer) throw answer;
        // An order changing faster than it can be read: the platform's fault to report, not a contradiction to answer.
        if (attempt === REPLAY_ATTEMPTS) throw new Error(`The order ${String(err.extensions.orderUuid)} changed under ${REPLAY_ATTEMPTS} replays in a row`);
      }
    }
  },
};

export const listOrders: ResourceRoute = {
  method: 'GET',
  path: '/orders',
  operationId: 'listOrders',
  access: CHANNEL_SCOPED,
  async handle({ query, channelUrl, orders, settings }) {
    const q = parseListOrdersQuery(query);
    let page;
    try {
      ({ orders: page } = await orders(EDGE_ORDERS, { filter: q.filter, page: q.page, perPage: q.perPage, sort: q.sort }));
    } catch (err) {
      // The subgraph names its arguments (`filter.updatedSince`); the client sent query parameters.
      if (err instanceof Problem && err.problemType === 'validation-failed') {
        throw Problem.validation((err.violations ?? []).map((v) => ({ ...v, property: q.parameterOf[v.property] ?? v.property })), err.message);
      }
      throw err;
    }
    const listUrl = `${channelUrl}/orders`;
    const { links, meta } = paginate(page, listUrl, pageUrls(listUrl, q.kept));
    const body = { data: page.items.map(toOrderResource), links, meta };
    if (q.sort !== 'UPDATED_ASC') return { status: 200, body };
    // In change order: where the next read continues.
    const nextCursor = nextOrderCursor(page.items, q.after, Date.now(), settings.ordersCursorSettleMs);
    return { status: 200, body: { ...body, meta: { ...meta, next_cursor: nextCursor } } };
  },
};

export const getOrder: ResourceRoute = {
  method: 'GET',
  path: '/orders/{orderUuid}',
  operationId: 'getOrder',
  access: CHANNEL_SCOPED,
  async handle({ params, orders }) {
    const { order } = await orders(EDGE_ORDER, { uuid: orderUuidOf(params) });
    if (!order) throw Problem.notFound(ORDER_NOT_FOUND_DETAIL);
    return { status: 200, body: { data: toOrderResource(order) } };
  },
};

export const confirmOrder: ResourceRoute = {
  method: 'PUT',
  path: '/orders/{orderUuid}/confirm',
  operationId: 'confirmOrder',
  access: CHANNEL_SCOPED,
  // The team's state is the orders service's to check: an already confirmed order answers 202
  // even for an inactive team, which only the order's state can tell.
  async handle({ params, body, orders }) {
    const uuid = orderUuidOf(params);
    const code = (body as { shippingMethodCode?: string } | undefined)?.shippingMethodCode;
    const { confirmOrder: order } = await orders(EDGE_CONFIRM_ORDER, { uuid, input: code !== undefined ? { shippingMethodCode: code } : {} });
    return { status: 202, body: { data: toOrderResource(order) } };
  },
};

export const amendOrderLines: ResourceRoute = {
  method: 'PUT',
  path: '/orders/{orderUuid}/lines',
  operationId: 'amendOrderLines',
  access: CHANNEL_SCOPED,
  async handle({ params, body, orders }) {
    const uuid = orderUuidOf(params);
    const { amendOrderLines: result } = await orders(EDGE_AMEND_ORDER_LINES, { uuid, input: toAmendOrderLinesInput(body as AmendOrderLinesBody) });
    return { status: 200, body: { data: toOrderResource(result.order), amendment: toAmendment(result.amendment) } };
  },
};

async function cancel(params: Record<string, string>, orders: UpstreamCall) {
  const { cancelOrder: order } = await orders(EDGE_CANCEL_ORDER, { uuid: orderUuidOf(params) });
  return { status: 200, body: { data: toOrderResource(order) } };
}

export const cancelOrder: ResourceRoute = {
  method: 'PUT',
  path: '/orders/{orderUuid}/cancel',
  operationId: 'cancelOrder',
  access: CHANNEL_SCOPED,
  handle: ({ params, orders }) => cancel(params, orders),
};

/** The same as `PUT /orders/{orderUuid}/cancel` (spec section 4). */
export const deleteOrder: ResourceRoute = {
  method: 'DELETE',
  path: '/orders/{orderUuid}',
  operationId: 'deleteOrder',
  access: CHANNEL_SCOPED,
  handle: ({ params, orders }) => cancel(params, orders),
};

/** Every order endpoint, in the document's order. */
export const ORDER_ROUTES: readonly ResourceRoute[] = [createOrder, listOrders, getOrder, deleteOrder, confirmOrder, amendOrderLines, cancelOrder];
