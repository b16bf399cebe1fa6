import { catalogFigureEvent, FIGURE_MAX, figureChanges, POD_SENTINEL, printsOnDemand, revisedFigure, sellableIn, stockFigure, type FigureProduct, type WarehouseLevel } from './stock-figure';

const product = (over: Partial<FigureProduct> = {}): FigureProduct => ({ deleted: false, podEnabled: false, podApproved: false, ...over });
const enabled = (onHand: number, held = 0): WarehouseLevel => ({ warehouseEnabled: true, onHand, held });
const disabled = (onHand: number, held = 0): WarehouseLevel => ({ warehouseEnabled: false, onHand, held });

describe('rule S1: the stock figure', () => {
  it('is the sum over the enabled warehouses', () => {
    expect(stockFigure(product(), [enabled(3), enabled(4)])).toBe(7);
  });

  it('is told at most as a 32-bit integer (GraphQL Int), however many warehouses', () => {
    expect(stockFigure(product({ podEnabled: true, podApproved: true }), Array.from({ length: 2148 }, () => enabled(1_000_000)))).toBe(FIGURE_MAX);
  });

  it('leaves disabled warehouses out', () => {
    expect(stockFigure(product(), [enabled(3), disabled(50)])).toBe(3);
    expect(stockFigure(product(), [disabled(50)])).toBe(0);
  });

  it('is 0 for a sold-out product (no stock rows, or rows at 0)', () => {
    expect(stockFigure(product(), [])).toBe(0);
    expect(stockFigure(product(), [enabled(0), enabled(0)])).toBe(0);
  });

  it('adds 10000 when print-on-demand is approved AND enabled', () => {
    expect(POD_SENTINEL).toBe(10_000);
    expect(stockFigure(product({ podEnabled: true, podApproved: true }), [enabled(5)])).toBe(10_005);
    expect(stockFigure(product({ podEnabled: true, podApproved: true }), [])).toBe(10_000);
  });

  it.each([
    ['enabled but not approved', { podEnabled: true, podApproved: false }],
    ['approved but not enabled', { podEnabled: false, podApproved: true }],
    ['neither', { podEnabled: false, podApproved: false }],
  ])('adds nothing when print-on-demand is %s', (_, flags) => {
    expect(stockFigure(product(flags), [enabled(5)])).toBe(5);
    expect(printsOnDemand(flags)).toBe(false);
  });

  it('does not depend on the active state or the SKU (inactive, pre-order and SKU-less products count alike)', () => {
    // FigureProduct deliberately has neither: the rule cannot look at them.
    const facts = { ...product(), activeState: 'pre-order', sku: null };
    expect(stockFigure(facts, [enabled(2)])).toBe(2);
    // Named, not inline: an inline literal's extra facts would be refused by the excess-property check.
    const inactive = { ...facts, activeState: 'inactive' };
    expect(stockFigure(inactive, [enabled(2)])).toBe(2);
  });

  it('gives a deleted product no figure (not listed), whatever its stock or print-on-demand', () => {
    expect(stockFigure(product({ deleted: true }), [enabled(5)])).toBeNull();
    expect(stockFigure(product({ deleted: true, podEnabled: true, podApproved: true }), [])).toBeNull();
  });

  it('does not count held stock, and never lets one warehouse go below 0', () => {
    expect(stockFigure(product(), [enabled(5, 2)])).toBe(3);
    expect(stockFigure(product(), [enabled(5, 5)])).toBe(0);
    // A count set below what orders hold in one warehouse does not eat another warehouse's stock.
    expect(stockFigure(product(), [enabled(2, 5), enabled(4)])).toBe(4);
    expect(sellableIn(enabled(2, 5))).toBe(0);
    expect(sellableIn(disabled(9))).toBe(0);
    expect(stockFigure(product({ podEnabled: true, podApproved: true }), [enabled(1, 3)])).toBe(10_000);
  });
});

describe('figure changes', () => {
  const snap = (productUuid: string, figure: number | null) => ({ productUuid, teamCode: 't', sku: `sku-${productUuid}`, figure });

  it('reports exactly the products whose figure differs, with before and after', () => {
    expect(figureChanges([snap('a', 5), snap('b', 3), snap('c', 0)], [snap('a', 4), snap('b', 3), snap('c', 10_000)])).toEqual([
      { productUuid: 'a', teamCode: 't', sku: 'sku-a', stock: 4, previousStock: 5 },
      { productUuid: 'c', teamCode: 't', sku: 'sku-c', stock: 10_000, previousStock: 0 },
    ]);
  });

  it('reports nothing for unlisted (deleted) products or products on one side only', () => {
    expect(figureChanges([snap('a', null), snap('b', 1)], [snap('a', null), snap('c', 2)])).toEqual([]);
    expect(figureChanges([snap('a', 1)], [snap('a', null)])).toEqual([]);
  });
});

describe('revisedFigure: what a catalog change did to a figure', () => {
  const snap = (figure: number | null) => ({ productUuid: 'p', teamCode: 't', sku: 'S', figure });

  it('announces the first figure of a product stock had not announced, 0 included', () => {
    expect(revisedFigure(undefined, snap(0))).toEqual({ productUuid: 'p', teamCode: 't', sku: 'S', stock: 0, previousStock: null });
    expect(revisedFigure(undefined, snap(10_000))).toMatchObject({ stock: 10_000, previousStock: null });
  });

  it('announces a figure the print-on-demand flags moved, and nothing when it stayed', () => {
    expect(revisedFigure(snap(4), snap(10_004))).toMatchObject({ stock: 10_004, previousStock: 4 });
    expect(revisedFigure(snap(10_004), snap(4))).toMatchObject({ stock: 4, previousStock: 10_004 });
    expect(revisedFigure(snap(4), snap(4))).toBeNull();
  });

  it('counts a deleted product as 0', () => {
    expect(revisedFigure(snap(7), snap(null))).toMatchObject({ stock: 0, previousStock: 7 });
    expect(revisedFigure(snap(0), snap(null))).toBeNull();
    expect(revisedFigure(undefined, snap(null))).toMatchObject({ stock: 0, previousStock: null });
  });
});

describe('catalogFigureEvent: which catalog figure moves are pushed', () => {
  const revised = (previousStock: number | null, stock: number) => ({ productUuid: 'p', teamCode: 't', sku: 'S', stock, previousStock });

  it('a fall of a listed product (print-on-demand withdrawn or switched off) is a stock change', () => {
    expect(catalogFigureEvent(revised(10_004, 4), false)).toEqual({ kind: 'changed', figure: revised(10_004, 4) });
  });

  it('a first figure, a rise (approval, activation) and a deletion are only revised', () => {
    expect(catalogFigureEvent(revised(null, 10_000), false).kind).toBe('revised');
    expect(catalogFigureEvent(revised(4, 10_004), false).kind).toBe('revised');
    expect(catalogFigureEvent(revised(10_004, 0), true).kind).toBe('revised');
  });
});
