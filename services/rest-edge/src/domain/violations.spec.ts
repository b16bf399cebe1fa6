import { propertyOfPointer } from './violations';

describe('propertyOfPointer', () => {
  it.each([
    ['/body/orderLines/7/product/sku', 'orderLines[7].product.sku'],
    ['/body/echo', 'echo'],
    ['/query/active-state', 'active-state'],
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
