import { stockLevelMembers } from './mapper';

describe('stockLevelMembers', () => {
  it('strips the brackets of a page, leaving its members', () => {
    const page = JSON.stringify([
      { sku: 'A', stock: 1 },
      { sku: null, stock: 10000 },
    ]);
    expect(stockLevelMembers(page)).toBe('{"sku":"A","stock":1},{"sku":null,"stock":10000}');
    expect(JSON.parse(`{"data":[${stockLevelMembers(page)},${stockLevelMembers('[{"sku":"B","stock":0}]')}]}`)).toEqual({
      data: [
        { sku: 'A', stock: 1 },
        { sku: null, stock: 10000 },
        { sku: 'B', stock: 0 },
      ],
    });
  });

  it('an empty page has no members', () => {
    expect(stockLevelMembers('[]')).toBe('');
    expect(stockLevelMembers(' [ ] ')).toBe('');
  });

  it('refuses anything but an array', () => {
    expect(() => stockLevelMembers('{"sku":"A"}')).toThrow(/not a JSON array/);
    expect(() => stockLevelMembers('')).toThrow(/not a JSON array/);
  });
});
