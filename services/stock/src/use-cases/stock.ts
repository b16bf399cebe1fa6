import { actorOf, type Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { authoriseChange, authoriseWarehouseStockRead, maySeeTeam, teamForFigures } from '../domain/authorisation';
import { feedPage } from '../domain/feed';
import type { ProductFacts, StockAdjustment, StockLevelRow, WarehouseStock } from '../domain/model';
import { stockFigure } from '../domain/stock-figure';
import { deltaViolations, isUuid, MAX_QUANTITY, quantityViolations, reasonViolations, uuidViolations } from '../domain/validation';
import { findProducts, lockProductsRead } from '../repositories/product-repository';
import { feedPage as readFeedPage, feedRowsOf, findLevel, insertAdjustment, levelsOf, listAdjustments, saveOnHand } from '../repositories/stock-repository';
import { shareWarehouse } from '../repositories/warehouse-repository';
import { changeTimeRead, changeWithEvents, figuresOf, stockLevelEvents, type StockDeps } from './deps';
import { warehouseNotFound } from './warehouses';

export interface SetStockInput {
  productUuid: string;
  warehouseId: string;
  /** The on-hand quantity counted, 0 or more. */
  quantity: number;
  reason: string;
}

export interface AdjustStockInput {
  productUuid: string;
  warehouseId: string;
  /** Added to the on-hand quantity (negative to take away); the result may not go below 0. */
  delta: number;
  reason: string;
}

/** A product's stock as the Product entity shows it. */
export interface ProductStock {
  product: ProductFacts;
  /** The S1 figure; 0 for a deleted product (which the feed does not list). */
  stock: number;
  levels: WarehouseStock[];
}

export interface StockLevelPage {
  items: StockLevelRow[];
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}

function productNotFound(uuid: string): Problem {
  return Problem.notFound(`Product ${uuid} was not found.`);
}

/** Sets a warehouse's on-hand stock of a product to a counted quantity, with a reason. */
export function setStock(deps: StockDeps, identity: Identity, input: SetStockInput): Promise<WarehouseStock> {
  const violations = [...quantityViolations(input.quantity, 'input.quantity', 0), ...reasonViolations(input.reason, 'input.reason')];
  return changeOnHand(deps, identity, input, violations, 'set', () => input.quantity);
}

/** Adds to (or takes from) a warehouse's on-hand stock of a product, with a reason. */
export function adjustStock(deps: StockDeps, identity: Identity, input: AdjustStockInput): Promise<WarehouseStock> {
  const violations = [...deltaViolations(input.delta, 'input.delta'), ...reasonViolations(input.reason, 'input.reason')];
  return changeOnHand(deps, identity, input, violations, 'adjust', (onHand) => {
    const result = onHand + input.delta;
    if (result < 0) {
      throw Problem.validation([{ property: 'input.delta', message: `Would take the stock below 0 (on hand: ${onHand}).` }]);
    }
    // The bound a count has (setStock): repeated additions reached the column's range and failed as a 500.
    if (result > MAX_QUANTITY) {
      throw Problem.validation([{ property: 'input.delta', message: `Would take the stock above ${MAX_QUANTITY} (on hand: ${onHand}).` }]);
    }
    return result;
  });
}

/**
 * The shared path of set and adjust: the warehouse and product must be the caller's team's (else
 * not found), the warehouse row is share-locked (against its enabling or disabling) and the
 * product row locked, in that order (updateWarehouse's), the change is logged with who and why, and
 * `stock-level.changed` is written when the product's figure changed.
 */
async function changeOnHand(
  deps: StockDeps,
  identity: Identity,
  input: { productUuid: string; warehouseId: string; reason: string },
  violations: Violation[],
  kind: 'set' | 'adjust',
  next: (onHand: number) => number,
): Promise<WarehouseStock> {
  return changeWithEvents(deps, async (tx) => {
    const warehouse = isUuid(input.warehouseId) ? await shareWarehouse(tx, input.warehouseId) : null;
    authoriseChange(identity, warehouse, () => warehouseNotFound(input.warehouseId));
    const idViolations = uuidViolations(input.productUuid, 'input.productUuid');
    if (idViolations.length > 0 || violations.length > 0) throw Problem.validation([...idViolations, ...violations]);
    const [[product], at] = await tx.reads([lockProductsRead([input.productUuid]), changeTimeRead(deps)]);
    if (!product || product.teamCode !== warehouse!.teamCode) throw productNotFound(input.productUuid);
    const before = await figuresOf(tx, [product]);
    const onHand = (await findLevel(tx, product.uuid, warehouse!.id))?.onHand ?? 0;
    const onHandAfter = next(onHand);
    await saveOnHand(tx, { productUuid: product.uuid, warehouseId: warehouse!.id, teamCode: product.teamCode, onHand: onHandAfter });
    await insertAdjustment(tx, {
      teamCode: product.teamCode,
      productUuid: product.uuid,
      warehouseId: warehouse!.id,
      kind,
      delta: onHandAfter - onHand,
      onHandAfter,
      reason: input.reason.trim(),
      actor: actorOf(identity),
      at,
    });
    const after = await figuresOf(tx, [product]);
    return { result: (await findLevel(tx, product.uuid, warehouse!.id))!, events: stockLevelEvents(before, after, at) };
  });
}

/**
 * The stock of products by uuid, for the federated Product entity (one query for all the
 * representations of a request). A product of another team, or one the read model does not know
 * (yet), is absent.
 */
export async function productStocks(deps: StockDeps, identity: Identity, uuids: readonly string[]): Promise<Map<string, ProductStock>> {
  const wanted = [...new Set(uuids.filter(isUuid).map((u) => u.toLowerCase()))];
  const products = (await findProducts(deps.pool, wanted)).filter((p) => maySeeTeam(identity, p.teamCode));
  const levels = await levelsOf(
    deps.pool,
    products.map((p) => p.uuid),
  );
  const byProduct = new Map<string, WarehouseStock[]>();
  for (const l of levels) byProduct.set(l.productUuid, [...(byProduct.get(l.productUuid) ?? []), l]);
  const result = new Map<string, ProductStock>();
  for (const product of products) {
    const own = byProduct.get(product.uuid) ?? [];
    const figure = stockFigure(
      product,
      own.map((l) => ({ warehouseEnabled: l.warehouse.enabled, onHand: l.onHand, held: l.held })),
    );
    result.set(product.uuid, { product, stock: figure ?? 0, levels: own });
  }
  return result;
}

/** Per-warehouse stock is back-office information: integrations are refused. */
export function warehouseStockOf(identity: Identity, stock: ProductStock): WarehouseStock[] {
  authoriseWarehouseStockRead(identity);
  return stock.levels;
}

/**
 * One page of the stock-levels feed (`GET /stock-levels`): `{productUuid, sku, stock}` for every
 * non-deleted product of the team, whatever its active state, in uuid order.
 */
export async function stockLevels(
  deps: StockDeps,
  identity: Identity,
  args: { teamCode?: string | null; after?: string | null; first?: number | null },
): Promise<StockLevelPage> {
  const team = teamForFigures(identity, args.teamCode);
  const page = feedPage(args.after, args.first);
  if (!team) return { items: [], nextCursor: null };
  // One row more than asked tells whether another page follows.
  const rows = await readFeedPage(deps.pool, team, page.after, page.size + 1);
  if (rows.length <= page.size) return { items: rows, nextCursor: null };
  rows.length = page.size;
  return { items: rows, nextCursor: rows[rows.length - 1]!.productUuid };
}

/**
 * The feed's rows for the given products of the team (`stockLevelsOf`, for the webhooks service's
 * stock-level-updated at sending time): the same figures and SKUs as `GET /stock-levels`.
 * Uuids that are malformed, deleted or another team's are left out. At most 5000.
 */
export async function stockLevelsOf(deps: StockDeps, identity: Identity, teamCode: string, productUuids: readonly string[]): Promise<StockLevelRow[]> {
  if (productUuids.length > 5000) throw Problem.validation([{ property: 'productUuids', message: 'At most 5000 product uuids.' }]);
  const team = teamForFigures(identity, teamCode);
  if (!team) return [];
  return feedRowsOf(deps.pool, team, [...new Set(productUuids.filter(isUuid).map((u) => u.toLowerCase()))]);
}

/** The product's latest on-hand changes, newest first (back-office). */
export async function stockAdjustments(deps: StockDeps, identity: Identity, productUuid: string, first?: number | null): Promise<StockAdjustment[]> {
  authoriseWarehouseStockRead(identity);
  const limit = first ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw Problem.validation([{ property: 'first', message: 'Must be from 1 to 500.' }]);
  if (!isUuid(productUuid)) return [];
  const [product] = await findProducts(deps.pool, [productUuid]);
  if (!product || !maySeeTeam(identity, product.teamCode)) return [];
  return listAdjustments(deps.prisma, product.uuid, limit);
}
