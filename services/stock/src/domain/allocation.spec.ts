import { allocate, type AllocationProduct, type WarehouseAvailability } from './allocation';

const P1 = '00000000-0000-4000-8000-000000000001';
const P2 = '00000000-0000-4000-8000-000000000002';
const P3 = '00000000-0000-4000-8000-000000000003';

const product = (productUuid: string, over: Partial<AllocationProduct> = {}): AllocationProduct => ({
  productUuid,
  sku: `SKU-${productUuid.slice(-1)}`,
  deleted: false,
  printsOnDemand: false,
  ...over,
});
const products = (...list: AllocationProduct[]) => new Map(list.map((p) => [p.productUuid, p]));
const stock = (warehouseId: string, productUuid: string, available: number): WarehouseAvailability => ({
  warehouseId,
  code: warehouseId,
  productUuid,
  available,
});

describe('allocation of an order\'s lines', () => {
  it('takes each line from one warehouse when one covers it', () => {
    const result = allocate({
      lines: [{ lineNumber: 1, productUuid: P1, quantity: 3 }],
      products: products(product(P1)),
      availability: [stock('a', P1, 2), stock('b', P1, 5)],
    });
    expect(result).toEqual({ kind: 'held', lines: [{ lineNumber: 1, productUuid: P1, quantity: 3, parts: [{ warehouseId: 'b', quantity: 3 }] }] });
  });

  it('prefers the warehouse that covers most lines of the order (fewer fulfilments), then the lowest code', () => {
    const result = allocate({
      lines: [
        { lineNumber: 1, productUuid: P1, quantity: 1 },
        { lineNumber: 2, productUuid: P2, quantity: 1 },
      ],
      products: products(product(P1), product(P2)),
      // a covers line 1 only; b covers both.
      availability: [stock('a', P1, 9), stock('b', P1, 1), stock('b', P2, 1)],
    });
    expect(result.kind === 'held' && result.lines.map((l) => l.parts)).toEqual([[{ warehouseId: 'b', quantity: 1 }], [{ warehouseId: 'b', quantity: 1 }]]);
    const tie = allocate({
      lines: [{ lineNumber: 1, productUuid: P1, quantity: 1 }],
      products: products(product(P1)),
      availability: [stock('z', P1, 9), stock('m', P1, 9)],
    });
    expect(tie.kind === 'held' && tie.lines[0]!.parts).toEqual([{ warehouseId: 'm', quantity: 1 }]);
  });

  it('splits a line only when no single warehouse covers it, largest stock first', () => {
    const result = allocate({
      lines: [{ lineNumber: 1, productUuid: P1, quantity: 7 }],
      products: products(product(P1)),
      availability: [stock('a', P1, 3), stock('b', P1, 4), stock('c', P1, 0)],
    });
    expect(result.kind === 'held' && result.lines[0]!.parts).toEqual([
      { warehouseId: 'b', quantity: 4 },
      { warehouseId: 'a', quantity: 3 },
    ]);
  });

  it('is all or nothing and reports EVERY short product, with requested over all its lines and available', () => {
    const result = allocate({
      lines: [
        { lineNumber: 1, productUuid: P1, quantity: 2 },
        { lineNumber: 2, productUuid: P2, quantity: 1 },
        { lineNumber: 3, productUuid: P1, quantity: 2 },
        { lineNumber: 4, productUuid: P3, quantity: 5 },
      ],
      products: products(product(P1), product(P2), product(P3, { sku: null })),
      availability: [stock('a', P1, 3), stock('a', P2, 1), stock('b', P3, 4)],
    });
    expect(result).toEqual({
      kind: 'short',
      shortages: [
        { productUuid: P1, sku: 'SKU-1', requested: 4, available: 3 },
        { productUuid: P3, sku: null, requested: 5, available: 4 },
      ],
    });
  });

  it('lets lines of the same product share one pool of stock', () => {
    const result = allocate({
      lines: [
        { lineNumber: 1, productUuid: P1, quantity: 3 },
        { lineNumber: 2, productUuid: P1, quantity: 3 },
      ],
      products: products(product(P1)),
      availability: [stock('a', P1, 4), stock('b', P1, 2)],
    });
    expect(result.kind === 'held' && result.lines.map((l) => l.parts)).toEqual([
      [{ warehouseId: 'a', quantity: 3 }],
      [
        { warehouseId: 'b', quantity: 2 },
        { warehouseId: 'a', quantity: 1 },
      ],
    ]);
  });

  it('never runs a print-on-demand product short: a covering warehouse first, else print on demand', () => {
    const pod = product(P1, { printsOnDemand: true });
    const covered = allocate({ lines: [{ lineNumber: 1, productUuid: P1, quantity: 2 }], products: products(pod), availability: [stock('a', P1, 2)] });
    expect(covered.kind === 'held' && covered.lines[0]!.parts).toEqual([{ warehouseId: 'a', quantity: 2 }]);
    const printed = allocate({ lines: [{ lineNumber: 1, productUuid: P1, quantity: 500 }], products: products(pod), availability: [stock('a', P1, 2)] });
    expect(printed.kind === 'held' && printed.lines[0]!.parts).toEqual([{ warehouseId: null, quantity: 500 }]);
  });

  it('treats a deleted product as short with nothing available, print-on-demand or not', () => {
    const result = allocate({
      lines: [{ lineNumber: 1, productUuid: P1, quantity: 1 }],
      products: products(product(P1, { deleted: true, printsOnDemand: true })),
      availability: [stock('a', P1, 10)],
    });
    expect(result).toEqual({ kind: 'short', shortages: [{ productUuid: P1, sku: 'SKU-1', requested: 1, available: 0 }] });
  });

  it('keeps a line where it was held before when that location still covers it (amendments are stable)', () => {
    const base = { products: products(product(P1)), availability: [stock('a', P1, 9), stock('b', P1, 3)] };
    const line = { lineNumber: 1, productUuid: P1, quantity: 3 };
    const first = allocate({ ...base, lines: [line] });
    expect(first.kind === 'held' && first.lines[0]!.parts).toEqual([{ warehouseId: 'a', quantity: 3 }]);
    const again = allocate({ ...base, lines: [line], previous: new Map([[1, [{ warehouseId: 'b', quantity: 3 }]]]) });
    expect(again.kind === 'held' && again.lines[0]!.parts).toEqual([{ warehouseId: 'b', quantity: 3 }]);
    const grown = allocate({ ...base, lines: [{ ...line, quantity: 4 }], previous: new Map([[1, [{ warehouseId: 'b', quantity: 3 }]]]) });
    expect(grown.kind === 'held' && grown.lines[0]!.parts).toEqual([{ warehouseId: 'a', quantity: 4 }]);
  });

  it('holds nothing for an empty order', () => {
    expect(allocate({ lines: [], products: new Map(), availability: [] })).toEqual({ kind: 'held', lines: [] });
  });
});
