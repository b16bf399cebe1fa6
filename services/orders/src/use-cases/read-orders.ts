import type { Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { ORDER_ORIGINS } from '@pf/platform/events/orders';
import type { Order, StatusChange } from '../domain/model';
import { parseInstant, unstorableText } from '../domain/order-input';
import { FULFILLABLE_STATUSES, isOrderStatus, type OrderStatus } from '../domain/order-state-machine';
import { isVisible, orderNotFound, scopeOf } from '../domain/visibility';
import { readOrderPage, type OrderCriteria } from '../repositories/order-page-repository';
import { isUuid, loadOrder } from '../repositories/order-repository';
import type { OrdersDeps } from './deps';

export interface OrderFilter {
  status?: string[] | null;
  orderNumber?: string | null;
  updatedSince?: string | null;
  createdSince?: string | null;
  updatedAfter?: { updatedAt: string; uuid: string } | null;
  channelId?: string | null;
  origin?: string | null;
  fulfillableStatus?: string[] | null;
  confirmed?: boolean | null;
}

export type OrderSort = 'CREATED_DESC' | 'UPDATED_ASC';

export interface OrderPage {
  items: Order[];
  page: number;
  perPage: number;
  total: number;
  lastPage: number;
  from: number | null;
  to: number | null;
}

/** One order the caller may see (rule O1), or the not-found problem a missing uuid gets. */
export async function getOrder(deps: OrdersDeps, identity: Identity, uuid: string): Promise<Order> {
  const order = await findVisibleOrder(deps, identity, uuid);
  if (!order) throw orderNotFound();
  return order;
}

/** The federation reference resolver: null when not visible. */
export async function findVisibleOrder(deps: OrdersDeps, identity: Identity, uuid: string): Promise<Order | null> {
  if (!isUuid(uuid)) return null;
  const order = await loadOrder(deps.pool, uuid.toLowerCase());
  return order && isVisible(scopeOf(identity), order) ? order : null;
}

/** Most values of one list filter (statuses): more than there are distinct ones, with room for repeats. */
const MAX_FILTER_VALUES = 50;

/**
 * A numbered page of the orders the caller may see: a channel its own API orders (rule O1), a
 * back-office user every channel of the team. Filters: statuses, order number, changed or created
 * since, after a position in change order; back-office also channel, origin, fulfillable
 * statuses, confirmed or not.
 */
export async function listOrders(
  deps: OrdersDeps,
  identity: Identity,
  args: { filter?: OrderFilter | null; page?: number | null; perPage?: number | null; sort?: OrderSort | null },
): Promise<OrderPage> {
  const filter = args.filter ?? {};
  const page = args.page ?? 1;
  const perPage = args.perPage ?? 15;
  const violations: Violation[] = [];
  if (!Number.isInteger(page) || page < 1) violations.push({ property: 'page', message: 'A whole number from 1.' });
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) violations.push({ property: 'perPage', message: 'A whole number from 1 to 100.' });
  // A list longer than any set of distinct values is a mistake (or 100 000 of them sent to slow the
  // service down): refused before its items are looked at.
  if ((filter.status?.length ?? 0) > MAX_FILTER_VALUES) violations.push({ property: 'filter.status', message: `At most ${MAX_FILTER_VALUES} statuses.` });
  else {
    const bad = (filter.status ?? []).filter((s) => !isOrderStatus(s));
    if (bad.length > 0) violations.push({ property: 'filter.status', message: `Unknown status ${bad.join(', ')}.` });
  }
  if ((filter.fulfillableStatus?.length ?? 0) > MAX_FILTER_VALUES) {
    violations.push({ property: 'filter.fulfillableStatus', message: `At most ${MAX_FILTER_VALUES} values.` });
  } else {
    const badFulfillable = (filter.fulfillableStatus ?? []).filter((s) => !(FULFILLABLE_STATUSES as readonly string[]).includes(s));
    if (badFulfillable.length > 0) violations.push({ property: 'filter.fulfillableStatus', message: `One of ${FULFILLABLE_STATUSES.join(', ')}.` });
  }
  if (filter.origin != null && !(ORDER_ORIGINS as readonly string[]).includes(filter.origin)) {
    violations.push({ property: 'filter.origin', message: `One of ${ORDER_ORIGINS.join(', ')}.` });
  }
  const since = (value: string | null | undefined, property: string): Date | undefined => {
    if (value == null) return undefined;
    const parsed = parseInstant(value, property);
    if (parsed.ok) return parsed.value;
    violations.push(...parsed.violations);
    return undefined;
  };
  for (const [property, value] of [['filter.orderNumber', filter.orderNumber], ['filter.channelId', filter.channelId]] as const) {
    const unstorable = value == null ? null : unstorableText(value, property);
    if (unstorable) violations.push(unstorable);
  }
  const updatedSince = since(filter.updatedSince, 'filter.updatedSince');
  const createdSince = since(filter.createdSince, 'filter.createdSince');
  const after = filter.updatedAfter;
  const updatedAfterAt = after ? since(after.updatedAt, 'filter.updatedAfter.updatedAt') : undefined;
  if (after && !isUuid(after.uuid)) violations.push({ property: 'filter.updatedAfter.uuid', message: 'A uuid.' });
  if (after && args.sort !== 'UPDATED_ASC') violations.push({ property: 'filter.updatedAfter', message: 'Only with sort UPDATED_ASC.' });
  if (violations.length > 0) throw Problem.validation(violations);

  const scope = scopeOf(identity);
  const criteria: OrderCriteria = {};
  if (scope.kind === 'channel') Object.assign(criteria, { teamCode: scope.teamCode, channelId: scope.channelId, origin: 'api' });
  else {
    if (scope.kind === 'team') criteria.teamCode = scope.teamCode;
    if (filter.channelId != null) criteria.channelId = filter.channelId;
    if (filter.origin != null) criteria.origin = filter.origin;
  }
  if (filter.status?.length) criteria.statuses = [...new Set(filter.status)];
  if (filter.orderNumber != null) criteria.orderNumber = filter.orderNumber;
  if (updatedSince) criteria.updatedSince = updatedSince;
  if (createdSince) criteria.createdSince = createdSince;
  if (after && updatedAfterAt) criteria.updatedAfter = { at: updatedAfterAt, uuid: after.uuid.toLowerCase() };
  if (scope.kind !== 'channel') {
    if (filter.fulfillableStatus?.length) criteria.fulfillableStatuses = [...new Set(filter.fulfillableStatus)];
    if (filter.confirmed != null) criteria.confirmed = filter.confirmed;
  }
  const { total, orders: items } = await readOrderPage(
    deps.pool,
    criteria,
    args.sort === 'UPDATED_ASC' ? 'updated-asc' : 'created-desc',
    (page - 1) * perPage,
    perPage,
  );
  const first = (page - 1) * perPage + 1;
  return {
    items,
    page,
    perPage,
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
    from: items.length > 0 ? first : null,
    to: items.length > 0 ? first + items.length - 1 : null,
  };
}

/**
 * The status changes of these orders, oldest first, in one query (a dashboard page asks for the
 * history of each of its orders: batched per request by the resolver). The caller already sees them.
 */
export async function statusHistories(deps: OrdersDeps, orderUuids: readonly string[]): Promise<Map<string, StatusChange[]>> {
  const rows = await deps.prisma.orderStatusChange.findMany({ where: { orderUuid: { in: [...orderUuids] } }, orderBy: { id: 'asc' } });
  const byOrder = new Map<string, StatusChange[]>(orderUuids.map((uuid) => [uuid, []]));
  for (const r of rows) {
    byOrder.get(r.orderUuid)?.push({
      from: r.fromStatus as OrderStatus | null,
      to: r.toStatus as OrderStatus,
      at: r.at,
      actor: r.actor,
      trigger: r.trigger,
      reason: r.reason,
    });
  }
  return byOrder;
}
