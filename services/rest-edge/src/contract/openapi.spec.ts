import { integerQueryParameters, loadContract, operationsOf, routingDocument, type OpenApiDocument } from './openapi';

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

describe('integerQueryParameters', () => {
  it('names the query parameters typed integer, on operations and paths, through $refs', () => {
    const withRefs: OpenApiDocument = {
      openapi: '3.0.3',
      info: { version: '1.0.0' },
      components: { parameters: { Page: { name: 'page', in: 'query', schema: { type: 'integer' } } } },
      paths: {
        '/a': {
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          get: { parameters: [{ $ref: '#/components/parameters/Page' }, { name: 'q', in: 'query', schema: { type: 'string' } }] },
        },
        '/b/{n}': { get: { parameters: [{ name: 'n', in: 'path', schema: { type: 'integer' } }, { name: 'size', in: 'query', schema: { type: 'integer' } }] } },
      },
    };
    expect(integerQueryParameters(withRefs)).toEqual(['limit', 'page', 'size']);
  });

  it('finds the paging parameters of the contract', () => {
    expect(integerQueryParameters(loadContract().document)).toEqual(['page', 'per-page', 'perPage', 'per_page']);
  });
});
