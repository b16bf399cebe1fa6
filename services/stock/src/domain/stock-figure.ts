/**
 * Rule S1, the stock figure `GET /stock-levels` reports for a product:
 *
 *   figure = Σ over the product's ENABLED warehouses of max(onHand − held, 0)
 *            + 10000 when print-on-demand is approved AND enabled
 *
 * - Holds: stock held for orders (placed holds) is already sold, so the figure is what can still
 *   be sold. Each warehouse counts what it can still give, never less than 0 (a count set below
 *   what orders hold there does not eat into another warehouse's stock).
 * - Inactive and pre-order products have a figure like any other (the feed lists them).
 * - A deleted product has no figure: it is not listed (`null`).
 * - A sold-out product has figure 0 (plus the sentinel when print-on-demand applies).
 * - The SKU plays no part (a product without SKU has a figure like any other).
 *
 * The feed computes the same in SQL (repositories/stock-repository.ts, `STOCK_FIGURE_SQL`); the
 * integration tests check that both agree case by case.
 */

/** Added to the figure of a product whose print-on-demand is approved and enabled. */
export const POD_SENTINEL = 10_000;

/** What the figure needs to know about a product. */
export interface FigureProduct {
  deleted: boolean;
  podEnabled: boolean;
  podApproved: boolean;
}

/** A product's stock in one warehouse. */
export interface WarehouseLevel {
  warehouseEnabled: boolean;
  onHand: number;
  /** Sum of the placed holds on this warehouse's stock of the product. */
  held: number;
}

/** Print-on-demand applies only when the product is both approved and enabled for it. */
export function printsOnDemand(product: Pick<FigureProduct, 'podEnabled' | 'podApproved'>): boolean {
  return product.podEnabled && product.podApproved;
}

/** What one warehouse can still sell of the product: 0 when disabled, never negative. */
export function sellableIn(level: WarehouseLevel): number {
  return level.warehouseEnabled ? Math.max(level.onHand - level.held, 0) : 0;
}

/**
 * The largest figure told: GraphQL's Int (and the feed's SQL) is 32-bit. Each warehouse holds at
 * most a million of a product, so only a team with thousands of warehouses would reach it.
 */
export const FIGURE_MAX = 2_147_483_647;

/** The S1 figure, or null for a deleted product (absent from the feed). */
export function stockFigure(product: FigureProduct, levels: readonly WarehouseLevel[]): number | null {
  if (product.deleted) return null;
  const inWarehouses = levels.reduce((sum, level) => sum + sellableIn(level), 0);
  return Math.min(inWarehouses + (printsOnDemand(product) ? POD_SENTINEL : 0), FIGURE_MAX);
}

/** A product's figure before and after a change, with what the event needs. */
export interface FigureSnapshot {
  productUuid: string;
  teamCode: string;
  sku: string | null;
  figure: number | null;
}

export interface FigureChange {
  productUuid: string;
  teamCode: string;
  sku: string | null;
  stock: number;
  previousStock: number;
}

/**
 * The products whose figure differs between two snapshots of the same change, in the order of
 * `after`. A product listed on one side only, or unlisted (deleted) on either, is no change of a
 * listed figure and yields nothing.
 */
export function figureChanges(before: readonly FigureSnapshot[], after: readonly FigureSnapshot[]): FigureChange[] {
  const previous = new Map(before.map((s) => [s.productUuid, s.figure]));
  const changes: FigureChange[] = [];
  for (const s of after) {
    const was = previous.get(s.productUuid);
    if (was === undefined || was === null || s.figure === null || was === s.figure) continue;
    changes.push({ productUuid: s.productUuid, teamCode: s.teamCode, sku: s.sku, stock: s.figure, previousStock: was });
  }
  return changes;
}

/** A figure a catalog change set, for `stock-level.revised` (`previousStock` null: the first). */
export type RevisedFigure = Omit<FigureChange, 'previousStock'> & { previousStock: number | null };

/**
 * What a catalog change of a product (created, print-on-demand flags, deleted) did to its figure,
 * for the read models that follow figures: the first figure of a product stock had not announced
 * yet (`before` undefined), else the new one when it moved. A deleted product counts as 0 (nothing
 * can be held of it), though the feed leaves it out.
 */
export function revisedFigure(before: FigureSnapshot | undefined, after: FigureSnapshot): RevisedFigure | null {
  const stock = after.figure ?? 0;
  const { productUuid, teamCode, sku } = after;
  if (before === undefined) return { productUuid, teamCode, sku, stock, previousStock: null };
  const previousStock = before.figure ?? 0;
  return previousStock === stock ? null : { productUuid, teamCode, sku, stock, previousStock };
}

/**
 * Which event announces a figure a catalog change moved. A figure that fell with the product still
 * listed is a stock change like any other: print-on-demand withdrawn or switched off takes the
 * 10000 away, and integrations must hear of it (`stock-level.changed`, pushed; spec section 6
 * spares only approval and activation). Everything else a catalog change does is
 * `stock-level.revised`, never pushed: a product's first figure, print-on-demand approval or
 * activation (a rise), and deletion (the product leaves `GET /stock-levels`).
 */
export function catalogFigureEvent(
  revised: RevisedFigure,
  deleted: boolean,
): { kind: 'changed'; figure: FigureChange } | { kind: 'revised'; figure: RevisedFigure } {
  const { previousStock } = revised;
  if (previousStock !== null && !deleted && revised.stock < previousStock) return { kind: 'changed', figure: { ...revised, previousStock } };
  return { kind: 'revised', figure: revised };
}
