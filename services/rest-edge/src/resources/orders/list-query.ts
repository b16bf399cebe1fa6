import { Problem } from '@pf/platform/problems';
import { decodeOrderCursor } from '../../domain/order-cursor';
import { PER_PAGE_ALIASES } from '../../domain/pagination';
import type { OrderFilterInput, OrderSort } from './operation';

/** `per-page` when the client sends none (the document's default). */
export const DEFAULT_PER_PAGE = 15;

/** `sort` values of the document and the subgraph's `OrderSort` each stands for. */
const SORTS: Record<string, OrderSort> = { 'created-desc': 'CREATED_DESC', 'updated-asc': 'UPDATED_ASC' };

export interface ListOrdersQuery {
  filter: OrderFilterInput;
  sort: OrderSort;
  /** The `after` cursor as sent, if any. */
  after?: string;
  page: number;
  perPage: number;
  /** The request's other list parameters in document order (undefined when not given): every page link repeats them. */
  kept: [name: string, value: string | number | undefined][];
  /**
   * The query parameter each of the orders subgraph's arguments came from (`filter.updatedSince`
   * -> `updatedSince` or `updated-since`, as sent), to name it in a refusal of the value.
   */
  parameterOf: Record<string, string>;
}

/**
 * Other spellings accepted for the parameters named in kebab case: the camelCase of the order's own
 * members (`orderNumber`, `updatedSince`, ...) and `per_page`, the name `meta` answers with. The
 * document's name wins when both are sent; links always use the document's names.
 */
const ALIASES: Record<string, readonly string[]> = {
  'order-number': ['orderNumber'],
  'updated-since': ['updatedSince'],
  'created-since': ['createdSince'],
  'per-page': PER_PAGE_ALIASES,
};

/** The timestamp parameters, every spelling (see http/query.ts: an offset's `+` written as-is). */
export const INSTANT_PARAMETERS: readonly string[] = ['updated-since', 'created-since'].flatMap((name) => [name, ...(ALIASES[name] ?? [])]);

/**
 * Reads `GET /orders`'s query once the OpenAPI validation passed, so each value has its documented
 * form. `status` is comma-separated (`style: form, explode: false`) and may also come repeated;
 * every other parameter comes once (refuseRepeatedParameters; the last value counts should one
 * come twice all the same). Unknown parameters are ignored.
 */
export function parseListOrdersQuery(query: Record<string, unknown>): ListOrdersQuery {
  const spelled = (name: string): string | undefined => {
    const v = query[name];
    const s = Array.isArray(v) ? v[v.length - 1] : v;
    return s === undefined || s === null ? undefined : String(s);
  };
  const sentAs = (name: string): string => [name, ...(ALIASES[name] ?? [])].find((n) => spelled(n) !== undefined) ?? name;
  const one = (name: string): string | undefined => spelled(sentAs(name));
  const statuses = [query.status]
    .flat(2)
    .filter((v) => v !== undefined && v !== null)
    .flatMap((v) => String(v).split(','))
    .filter((s) => s !== '');

  const filter: OrderFilterInput = {};
  if (statuses.length) filter.status = [...new Set(statuses)];
  const orderNumber = one('order-number');
  if (orderNumber !== undefined) filter.orderNumber = orderNumber;
  const updatedSince = one('updated-since');
  if (updatedSince !== undefined) filter.updatedSince = updatedSince;
  const createdSince = one('created-since');
  if (createdSince !== undefined) filter.createdSince = createdSince;
  const after = one('after');
  if (after !== undefined) {
    const position = decodeOrderCursor(after);
    if (!position) throw Problem.validation([{ property: 'after', message: 'must be a next_cursor this API answered' }]);
    filter.updatedAfter = position;
  }

  // The document's default, except that a cursor reads in change order: `after` implies updated-asc.
  const sortName = one('sort') ?? (after !== undefined ? 'updated-asc' : 'created-desc');
  // Said here in the document's words (the subgraph would name its own enum value).
  if (after !== undefined && sortName !== 'updated-asc') throw Problem.validation([{ property: 'after', message: 'Only with sort=updated-asc (the default when after is given).' }]);
  const page = Number(one('page') ?? 1);
  const perPage = Number(one('per-page') ?? DEFAULT_PER_PAGE);
  const validPerPage = Number.isInteger(perPage) && perPage >= 1 ? perPage : DEFAULT_PER_PAGE;

  return {
    filter,
    sort: SORTS[sortName] ?? 'CREATED_DESC',
    ...(after !== undefined ? { after } : {}),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    perPage: validPerPage,
    kept: [
      ['status', filter.status?.join(',')],
      ['order-number', orderNumber],
      ['updated-since', updatedSince],
      ['created-since', createdSince],
      ['after', after],
      ['sort', sortName],
      ['per-page', validPerPage],
    ],
    parameterOf: {
      'filter.status': 'status',
      'filter.orderNumber': sentAs('order-number'),
      'filter.updatedSince': sentAs('updated-since'),
      'filter.createdSince': sentAs('created-since'),
      'filter.updatedAfter': 'after',
      'filter.updatedAfter.updatedAt': 'after',
      'filter.updatedAfter.uuid': 'after',
      page: 'page',
      perPage: sentAs('per-page'),
      sort: 'sort',
    },
  };
}
