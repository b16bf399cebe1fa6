import { jsonShapeFault, type JsonShapeLimits } from './json-shape';

const LIMITS: JsonShapeLimits = { maxValues: 50, maxDepth: 4 };
const fault = (text: string, limits = LIMITS) => jsonShapeFault(Buffer.from(text, 'utf8'), limits);

describe('jsonShapeFault', () => {
  it('passes an order-shaped body, whatever its strings hold', () => {
    const body = JSON.stringify({
      orderNumber: 'A-1, {"b": [1, 2]}',
      orderLines: [{ lineNumber: 1, product: { sku: 'x\\"[{,' }, quantity: 2 }],
      shippingDetails: { city: 'Leeds', country: { code: 'GB' } },
      '\u00e9t\u00e9': '\u{1F600}',
    });
    expect(fault(body)).toBeNull();
  });

  it('counts values, containers and members alike, and names the body when there are too many', () => {
    expect(fault(`[${Array(50).fill(0).join(',')}]`)).toEqual({ property: 'body', message: 'The request body holds more than 50 JSON values.' });
    expect(fault(`[${Array(49).fill(0).join(',')}]`)).toBeNull();
    // An empty container is one value: the object, its array and 48 empty objects are 50.
    expect(fault(`{"a":[${Array(48).fill('{ }').join(',')}]}`)).toBeNull();
    expect(fault(`{"a":[${Array(49).fill('[]').join(',')}]}`)).toEqual({ property: 'body', message: 'The request body holds more than 50 JSON values.' });
    expect(fault('{}', { maxValues: 1, maxDepth: 1 })).toBeNull();
    expect(fault('{"a":1}', { maxValues: 2, maxDepth: 1 })).toBeNull();
    expect(fault('{"a":1,"b":2}', { maxValues: 2, maxDepth: 1 })).toEqual({ property: 'body', message: 'The request body holds more than 2 JSON values.' });
    // Commas and brackets inside strings are text, not structure.
    expect(fault(JSON.stringify({ a: ','.repeat(500) + '['.repeat(500) }))).toBeNull();
  });

  it('refuses nesting deeper than the limit, naming where', () => {
    expect(fault('{"a":{"b":[{"c":1}]}}')).toBeNull();
    expect(fault('{"a":{"b":[{"c":[1]}]}}')).toEqual({ property: 'a.b[0].c', message: 'Nests deeper than 4 levels.' });
    expect(fault('['.repeat(100_000), { maxValues: 1_000_000, maxDepth: 4 })).toEqual({ property: '[0][0][0][0]', message: 'Nests deeper than 4 levels.' });
  });

  it('refuses a member name given twice in one object, compared as decoded, naming the member', () => {
    expect(fault('{"orderNumber":"x","orderNumber":"y"}')).toEqual({ property: 'orderNumber', message: 'This member is given twice; give it once.' });
    expect(fault('{"a":1,"\\u0061":2}')).toEqual({ property: 'a', message: 'This member is given twice; give it once.' });
    expect(fault('{"orderLines":[{"quantity":1},{"quantity":1,"quantity":2}]}')).toEqual({ property: 'orderLines[1].quantity', message: 'This member is given twice; give it once.' });
    // The same name in two objects, or as a value, is no duplicate.
    expect(fault('{"a":{"a":"a"},"b":{"a":"a"},"c":["a","a"]}')).toBeNull();
  });

  it('leaves text that is not JSON to the parser', () => {
    expect(fault('{"a":')).toBeNull();
    expect(fault('"unterminated')).toBeNull();
    expect(fault('}}]]')).toBeNull();
  });
});
