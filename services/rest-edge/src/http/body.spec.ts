import { bodyTakers } from './body';

describe('bodyTakers', () => {
  const takesBody = bodyTakers(
    [
      { method: 'GET', path: '/', operationId: 'getChannel', takesBody: false },
      { method: 'POST', path: '/', operationId: 'postChannel', takesBody: true },
      { method: 'PUT', path: '/orders/{orderUuid}/lines', operationId: 'amendOrder', takesBody: true },
      { method: 'PUT', path: '/orders/{orderUuid}/cancel', operationId: 'cancelOrder', takesBody: false },
    ],
    '/v1/channels/{channelId}',
  );

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
