import {
  isProblemTransport,
  Problem,
  PROBLEM_TYPE_BASE,
  PROBLEM_TYPES,
  problemTypeUri,
  statusTitle,
  type ProblemTypeName,
} from './problems';

describe('Problem', () => {
  it.each([
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'Not Found'],
    [409, 'Conflict'],
    [422, 'Unprocessable Entity'],
    [428, 'Precondition Required'],
    [429, 'Too Many Requests'],
    [500, 'Internal Server Error'],
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
  ])('titles a %i body "%s"', (status, title) => {
    expect(statusTitle(status)).toBe(title);
  });

  it.each(Object.keys(PROBLEM_TYPES) as ProblemTypeName[])('%s: status and title follow the type', (name) => {
    const body = new Problem(name, { detail: 'd' }).toBody();
    expect(body.status).toBe(PROBLEM_TYPES[name].status);
    expect(body.title).toBe(statusTitle(body.status));
    expect(body.detail).toBe('d');
  });

  it('gives typed problems a type URI ending in the type name', () => {
    const body = new Problem('channel-inactive', { detail: 'Channel is inactive.' }).toBody();
    expect(body).toEqual({
      type: 'https://docs.print-fulfilment.dev/problems/channel-inactive',
      title: 'Forbidden',
      status: 403,
      detail: 'Channel is inactive.',
    });
    expect(body.type!.endsWith('/problems/channel-inactive')).toBe(true);
    expect(problemTypeUri('rate-limited')).toBe(`${PROBLEM_TYPE_BASE}rate-limited`);
  });

  it('leaves the type out of the stock-unavailable 409, keeping its contract members', () => {
    const body = new Problem('stock-unavailable', { detail: 'Not enough stock.', extensions: { skus: ['A', 'B'] } }).toBody();
    expect(body).toEqual({ title: 'Conflict', status: 409, detail: 'Not enough stock.', skus: ['A', 'B'] });
    expect('type' in body).toBe(false);
  });

  it('never lets extensions replace or add standard members', () => {
    const sneaky = { type: 'about:blank', title: 'OK', status: 200, detail: 'overridden', violations: [{ property: 'x', message: 'y' }] };
    const typed = new Problem('order-already-confirmed', {
      detail: 'Order exists.',
      extensions: { ...sneaky, orderUuid: 'u-1', orderStatus: 'queued' },
    }).toBody();
    expect(typed).toEqual({
      type: problemTypeUri('order-already-confirmed'),
      title: 'Conflict',
      status: 409,
      detail: 'Order exists.',
      orderUuid: 'u-1',
      orderStatus: 'queued',
    });
    // Also where the standard member is absent: the untyped 409 must stay untyped.
    const untyped = new Problem('stock-unavailable', { detail: 'Not enough stock.', extensions: sneaky }).toBody();
    expect(untyped).toEqual({ title: 'Conflict', status: 409, detail: 'Not enough stock.' });
  });

  it('carries a reference given as an extension (the 500 body)', () => {
    expect(new Problem('internal', { detail: 'Something went wrong.', extensions: { reference: 'ref-1' } }).toBody()).toEqual({
      type: problemTypeUri('internal'),
      title: 'Internal Server Error',
      status: 500,
      detail: 'Something went wrong.',
      reference: 'ref-1',
    });
  });

  it('lists violations on a 422', () => {
    const p = Problem.validation([{ property: 'orderLines[7].product.sku', message: 'Unknown SKU' }]);
    expect(p.toBody()).toEqual({
      type: problemTypeUri('validation-failed'),
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'The request is not valid.',
      violations: [{ property: 'orderLines[7].product.sku', message: 'Unknown SKU' }],
    });
  });

  it('survives the trip through GraphQL error extensions unchanged', () => {
    const original = new Problem('order-not-updatable', {
      detail: 'Finished.',
      violations: [{ property: 'a', message: 'b' }],
      extensions: { orderUuid: 'u', data: { status: 'complete' } },
    });
    const transport = JSON.parse(JSON.stringify(original.toTransport()));
    expect(isProblemTransport(transport)).toBe(true);
    const back = Problem.fromTransport(transport);
    expect(back).toBeInstanceOf(Problem);
    expect(back.toBody()).toEqual(original.toBody());
    expect(back.status).toBe(409);
  });

  it('recognises only transports of known problem types', () => {
    expect(isProblemTransport({ problemType: 'not-found', detail: 'x', extensions: {} })).toBe(true);
    expect(isProblemTransport({ problemType: 'teapot', detail: 'x', extensions: {} })).toBe(false);
    expect(isProblemTransport({ problemType: 'not-found' })).toBe(false);
    expect(isProblemTransport(null)).toBe(false);
    expect(isProblemTransport('not-found')).toBe(false);
  });

  it('is an Error whose message is the detail', () => {
    const p = Problem.notFound('No such channel.');
    expect(p).toBeInstanceOf(Error);
    expect(p.message).toBe('No such channel.');
    expect(p.problemType).toBe('not-found');
    expect(p.status).toBe(404);
  });
});
