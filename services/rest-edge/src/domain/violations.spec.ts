import { onePerProperty, onTheCountAlone, propertyOfPointer } from './violations';

describe('propertyOfPointer', () => {
  it.each([
    ['/body/orderLines/7/product/sku', 'orderLines[7].product.sku'],
    ['/body/echo', 'echo'],
    ['/query/active-state', 'active-state'],
    ['/query/status/0', 'status'],
    ['/query/status/3', 'status'],
    ['/params/orderUuid', 'orderUuid'],
    ['/body/shippingDetails/state/name', 'shippingDetails.state.name'],
    ['/body/0/sku', '[0].sku'],
    ['/body/a~1b/c~0d', '["a/b"]["c~d"]'],
    ['/body/with space', '["with space"]'],
  ])('%s -> %s', (pointer, property) => {
    expect(propertyOfPointer(pointer)).toBe(property);
  });

  it('names the body as a whole "body"', () => {
    expect(propertyOfPointer('/body')).toBe('body');
    expect(propertyOfPointer('')).toBe('body');
  });

  it('keeps an unknown first segment as part of the path', () => {
    expect(propertyOfPointer('/something/else')).toBe('something.else');
  });
});

describe('onTheCountAlone', () => {
  const tooMany = { path: '/body/orderLines', message: 'must NOT have more than 500 items', errorCode: 'maxItems.openapi.validation' };

  it('drops what is wrong inside a list that is too long, and keeps everything else', () => {
    const failures = [
      tooMany,
      { path: '/body/orderLines/0/quantity', message: 'must be >= 1', errorCode: 'minimum.openapi.validation' },
      { path: '/body/orderLines/500/product/sku', message: 'must be string', errorCode: 'type.openapi.validation' },
      { path: '/body/orderLinesNote', message: 'must be string', errorCode: 'type.openapi.validation' },
      { path: '/body/orderNumber', message: 'must NOT have more than 255 characters', errorCode: 'maxLength.openapi.validation' },
    ];
    expect(onTheCountAlone(failures).map((f) => f.path)).toEqual(['/body/orderLines', '/body/orderLinesNote', '/body/orderNumber']);
  });

  it('leaves the failures of lists within their length as they are', () => {
    const failures = [{ path: '/body/orderLines/3/quantity', message: 'must be >= 1', errorCode: 'minimum.openapi.validation' }];
    expect(onTheCountAlone(failures)).toBe(failures);
  });
});

describe('onePerProperty', () => {
  it('gives each field one violation, in the order first named, its distinct messages joined', () => {
    expect(
      onePerProperty([
        { property: 'sort', message: 'must be string' },
        { property: 'page', message: 'must be >= 1' },
        { property: 'sort', message: 'must be equal to one of the allowed values' },
        { property: 'sort', message: 'must be string' },
      ]),
    ).toEqual([
      { property: 'sort', message: 'must be string; must be equal to one of the allowed values' },
      { property: 'page', message: 'must be >= 1' },
    ]);
    expect(onePerProperty([])).toEqual([]);
  });
});
