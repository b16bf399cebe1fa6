import { loadContract, operationsByRoute, operationsOf, routingDocument, type OpenApiDocument } from './openapi';

const doc: OpenApiDocument = {
  openapi: '3.0.3',
  info: { version: '1.2.0' },
  servers: [{ url: '/v1/channels/{channelId}', variables: { channelId: { default: 'acme-shop' } } }],
  paths: {
    '/': { get: { operationId: 'getChannel', responses: {} } },
    '/orders/{orderUuid}': {
      parameters: [{ name: 'orderUuid', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getOrder', responses: {} },
      delete: { operationId: 'cancelOrder', responses: {} },
    },
  },
};

describe('routingDocument', () => {
  it('moves the templated part of the server path into every path, its variables into path parameters', () => {
    const routed = routingDocument(doc);
    expect(routed.servers).toEqual([{ url: '/v1/channels' }]);
    expect(Object.keys(routed.paths)).toEqual(['/{channelId}', '/{channelId}/orders/{orderUuid}']);
    expect(routed.paths['/{channelId}/orders/{orderUuid}']!.parameters).toEqual([
      { name: 'channelId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'orderUuid', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(routed.paths['/{channelId}']!.get).toBe(doc.paths['/']!.get);
    // the source is untouched
    expect(Object.keys(doc.paths)).toEqual(['/', '/orders/{orderUuid}']);
  });

  it('leaves a document without server variables as it is', () => {
    const plain = { ...doc, servers: [{ url: '/v1' }] };
    expect(routingDocument(plain)).toBe(plain);
  });
});

describe('operationsOf', () => {
  it('lists every operation with its method, path, operationId and whether it takes a body', () => {
    const withBody = { ...doc, paths: { ...doc.paths, '/orders/{orderUuid}/lines': { put: { operationId: 'amendOrder', requestBody: { content: {} }, responses: {} } } } };
    expect(operationsOf(withBody)).toEqual([
      { method: 'GET', path: '/', operationId: 'getChannel', takesBody: false },
      { method: 'GET', path: '/orders/{orderUuid}', operationId: 'getOrder', takesBody: false },
      { method: 'DELETE', path: '/orders/{orderUuid}', operationId: 'cancelOrder', takesBody: false },
      { method: 'PUT', path: '/orders/{orderUuid}/lines', operationId: 'amendOrder', takesBody: true },
    ]);
  });
});

describe('operationsByRoute: the query parameters of a request\'s operation', () => {
  it("names one operation's query parameters and its integers, on the operation and its path, through $refs", () => {
    const withRefs: OpenApiDocument = {
      openapi: '3.0.3',
      info: { version: '1.0.0' },
      servers: [{ url: '/v1' }],
      components: { parameters: { Page: { name: 'page', in: 'query', schema: { type: 'integer' } } } },
      paths: {
        '/a': {
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          get: { parameters: [{ $ref: '#/components/parameters/Page' }, { name: 'q', in: 'query', schema: { type: 'string' } }] },
          post: {},
        },
        '/b/{n}': { get: { parameters: [{ name: 'n', in: 'path', schema: { type: 'integer' } }, { name: 'size', in: 'query', schema: { type: 'integer' } }] } },
        '/b/fixed': { get: { parameters: [{ name: 'only', in: 'query', schema: { type: 'string' } }] } },
      },
    };
    const byRoute = operationsByRoute(withRefs);
    const queryOf = (method: string, path: string) => byRoute(method, path).query;
    expect(queryOf('GET', '/v1/a')).toEqual({ names: ['limit', 'page', 'q'], integers: ['limit', 'page'], lists: [] });
    expect(queryOf('HEAD', '/v1/a/')).toEqual({ names: ['limit', 'page', 'q'], integers: ['limit', 'page'], lists: [] });
    expect(queryOf('POST', '/v1/a')).toEqual({ names: ['limit'], integers: ['limit'], lists: [] });
    expect(queryOf('GET', '/v1/b/7')).toEqual({ names: ['size'], integers: ['size'], lists: [] });
    // a concrete path before a templated one
    expect(queryOf('GET', '/v1/b/fixed')).toEqual({ names: ['only'], integers: [], lists: [] });
    // nothing for a path or method the document lacks, or another case
    for (const [m, p] of [['GET', '/v1/c'], ['DELETE', '/v1/a'], ['GET', '/V1/a']]) expect(queryOf(m!, p!)).toEqual({ names: [], integers: [], lists: [] });
  });

  it("finds the contract's paging parameters on GET /orders, and none on the secret's rotation", () => {
    const byRoute = operationsByRoute(loadContract().routing);
    const queryOf = (method: string, path: string) => byRoute(method, path).query;
    expect(queryOf('GET', '/v1/channels/acme-shop/orders').integers).toEqual(['page', 'per-page', 'perPage', 'per_page']);
    expect(queryOf('GET', '/v1/channels/acme-shop/orders').names).toContain('status');
    expect(queryOf('GET', '/v1/channels/acme-shop/orders').lists).toEqual(['status']);
    expect(queryOf('POST', '/v1/channels/acme-shop/webhooks/secret/rotate')).toEqual({ names: [], integers: [], lists: [] });
  });

  it('names the path template of the operation (the metrics\' route label), and none for a path the document lacks', () => {
    const byRoute = operationsByRoute(loadContract().routing);
    expect(byRoute('GET', '/v1/channels/acme-shop/orders/0f8c2d5e').template).toBe('/v1/channels/{channelId}/orders/{orderUuid}');
    expect(byRoute('PUT', '/v1/channels/acme-shop/orders/0f8c2d5e/confirm/').template).toBe('/v1/channels/{channelId}/orders/{orderUuid}/confirm');
    expect(byRoute('POST', '/v1/channels/acme-shop/products/validate-skus').template).toBe('/v1/channels/{channelId}/products/validate-skus');
    expect(byRoute('GET', '/v1/channels/acme-shop/nothing').template).toBeUndefined();
  });
});

describe('operationsByRoute: whether a request\'s operation takes a body', () => {
  const routing: OpenApiDocument = {
    openapi: '3.0.3',
    info: { version: '1.0.0' },
    servers: [{ url: '/v1' }],
    paths: {
      '/channels/{channelId}': { get: {}, post: { requestBody: {} } },
      '/channels/{channelId}/orders/{orderUuid}/lines': { put: { requestBody: {} } },
      '/channels/{channelId}/orders/{orderUuid}/cancel': { put: {} },
    },
  };
  const byRoute = operationsByRoute(routing);
  const takesBody = (method: string, path: string) => byRoute(method, path).takesBody;

  it('names the requests to an operation that takes a body, matched as the edge routes (case-sensitive, a trailing slash allowed)', () => {
    expect(takesBody('PUT', '/v1/channels/a-b/orders/123/lines')).toBe(true);
    expect(takesBody('PUT', '/v1/channels/A-B/orders/123/lines/')).toBe(true);
    expect(takesBody('PUT', '/V1/Channels/a-b/orders/123/lines')).toBe(false);
    expect(takesBody('POST', '/v1/channels/a-b')).toBe(true);
    expect(takesBody('POST', '/v1/channels/a-b/')).toBe(true);
  });

  it('no other request: another method, an operation without a body, a path below or beside', () => {
    expect(takesBody('GET', '/v1/channels/a-b/orders/123/lines')).toBe(false);
    expect(takesBody('PUT', '/v1/channels/a-b/orders/123/cancel')).toBe(false);
    expect(takesBody('GET', '/v1/channels/a-b')).toBe(false);
    expect(takesBody('PUT', '/v1/channels/a-b/orders/123/lines/x')).toBe(false);
    expect(takesBody('PUT', '/v1/channels/a-b/orders/1/2/lines')).toBe(false);
  });
});
