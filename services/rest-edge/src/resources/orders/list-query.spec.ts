import { paginate, pageUrls } from '../../domain/pagination';
import { encodeOrderCursor } from '../../domain/order-cursor';
import { parseListOrdersQuery } from './list-query';

describe('parseListOrdersQuery', () => {
  it('defaults: first page of 15, newest first, no filter', () => {
    expect(parseListOrdersQuery({})).toEqual({
      filter: {},
      sort: 'CREATED_DESC',
      page: 1,
      perPage: 15,
      kept: [
        ['status', undefined],
        ['order-number', undefined],
        ['updated-since', undefined],
        ['created-since', undefined],
        ['after', undefined],
        ['sort', 'created-desc'],
        ['per-page', 15],
      ],
      parameterOf: {
        'filter.status': 'status',
        'filter.orderNumber': 'order-number',
        'filter.updatedSince': 'updated-since',
        'filter.createdSince': 'created-since',
        'filter.updatedAfter': 'after',
        'filter.updatedAfter.updatedAt': 'after',
        'filter.updatedAfter.uuid': 'after',
        page: 'page',
        perPage: 'per-page',
        sort: 'sort',
      },
    });
  });

  it('after: the position of a next_cursor, read in change order (implied when no sort is sent), repeated by the links', () => {
    const cursor = encodeOrderCursor({ updatedAt: '2026-11-27T02:03:02.968Z', uuid: 'c0b3d54d-1f2e-4c3b-9a8d-7e6f5a4b3c2d' });
    const q = parseListOrdersQuery({ after: cursor });
    expect(q.filter).toEqual({ updatedAfter: { updatedAt: '2026-11-27T02:03:02.968Z', uuid: 'c0b3d54d-1f2e-4c3b-9a8d-7e6f5a4b3c2d' } });
    expect(q.sort).toBe('UPDATED_ASC');
    expect(q.kept).toEqual(expect.arrayContaining([['after', cursor], ['sort', 'updated-asc']]));
    // Another sort is refused in the document's words, naming `after`.
    expect(() => parseListOrdersQuery({ after: cursor, sort: 'created-desc' })).toThrow(
      expect.objectContaining({ violations: [{ property: 'after', message: 'Only with sort=updated-asc (the default when after is given).' }] }),
    );
    expect(() => parseListOrdersQuery({ after: 'not-a-cursor' })).toThrow(expect.objectContaining({ violations: [{ property: 'after', message: expect.any(String) }] }));
  });

  it('accepts camelCase spellings and per_page; the document\'s names win and the links use them', () => {
    const q = parseListOrdersQuery({ orderNumber: 'A 1', updatedSince: '2026-10-20T08:00:00Z', createdSince: '2026-10-19T08:00:00Z', per_page: '5' });
    expect(q.filter).toEqual({ orderNumber: 'A 1', updatedSince: '2026-10-20T08:00:00Z', createdSince: '2026-10-19T08:00:00Z' });
    expect(q.perPage).toBe(5);
    expect(q.kept).toEqual(expect.arrayContaining([['order-number', 'A 1'], ['per-page', 5]]));
    expect(parseListOrdersQuery({ perPage: '7' }).perPage).toBe(7);
    expect(parseListOrdersQuery({ 'order-number': 'kebab', orderNumber: 'camel' }).filter.orderNumber).toBe('kebab');
  });

  it('knows which parameter each subgraph argument came from, as sent, to name it in a refusal', () => {
    const q = parseListOrdersQuery({ updatedSince: 'x', 'created-since': 'y', per_page: '5' });
    expect(q.parameterOf).toMatchObject({ 'filter.updatedSince': 'updatedSince', 'filter.createdSince': 'created-since', perPage: 'per_page' });
  });

  it('reads every filter; status comma-separated, repeated or both, without duplicates', () => {
    const q = parseListOrdersQuery({
      status: ['queued,draft', 'queued'],
      'order-number': 'A 1',
      'updated-since': '2026-10-20T08:00:00Z',
      'created-since': '2026-10-19T08:00:00+02:00',
      sort: 'updated-asc',
      page: '3',
      'per-page': '50',
    });
    expect(q.filter).toEqual({
      status: ['queued', 'draft'],
      orderNumber: 'A 1',
      updatedSince: '2026-10-20T08:00:00Z',
      createdSince: '2026-10-19T08:00:00+02:00',
    });
    expect(q).toMatchObject({ sort: 'UPDATED_ASC', page: 3, perPage: 50 });
  });

  it('accepts values already coerced by the validator (numbers, arrays)', () => {
    expect(parseListOrdersQuery({ status: ['complete', 'partial'], page: 2, 'per-page': 100 })).toMatchObject({
      filter: { status: ['complete', 'partial'] },
      page: 2,
      perPage: 100,
    });
  });

  it('page links repeat the filters, sort and per-page, percent-encoded', () => {
    const q = parseListOrdersQuery({ status: 'queued,holding', 'order-number': 'A&B', sort: 'updated-asc', page: '2', 'per-page': '1' });
    const url = 'https://api.example/v1/channels/acme-shop/orders';
    const { links, meta } = paginate({ page: 2, perPage: 1, total: 3, lastPage: 3, from: 2, to: 2 }, url, pageUrls(url, q.kept));
    expect(links).toEqual({
      first: `${url}?status=queued%2Cholding&order-number=A%26B&sort=updated-asc&per-page=1&page=1`,
      last: `${url}?status=queued%2Cholding&order-number=A%26B&sort=updated-asc&per-page=1&page=3`,
      prev: `${url}?status=queued%2Cholding&order-number=A%26B&sort=updated-asc&per-page=1&page=1`,
      next: `${url}?status=queued%2Cholding&order-number=A%26B&sort=updated-asc&per-page=1&page=3`,
    });
    expect(meta).toMatchObject({ current_page: 2, from: 2, to: 2, per_page: 1, last_page: 3, total: 3, path: url });
  });
});
