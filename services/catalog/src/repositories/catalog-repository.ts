import { Prisma, type PrismaClient } from '../generated/prisma/client';
import type { ActiveState, Dimensions, Measure, Product, ProductFields, ShippingMethod, ShippingMethodFields, ServiceLevel } from '../domain/model';
import type { ProductCursor } from '../domain/pagination';

/**
 * The only code that talks to Prisma. Every function takes the client to use, so a use case passes
 * its transaction. Raw SQL names the schema `catalog` explicitly (Prisma qualifies its own queries
 * from `@@schema`; raw queries run with the connection's default search_path).
 */
export type Db = PrismaClient | Prisma.TransactionClient;

type ProductRow = Prisma.ProductGetPayload<object>;
type ShippingMethodRow = Prisma.ShippingMethodGetPayload<object>;

/** True for a unique-index violation: a SKU already used by a live product of the team. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

// --- products ------------------------------------------------------------------------------------

function measureOf(measurement: Prisma.Decimal | null, unit: string | null): Measure | null {
  return measurement !== null && unit !== null ? { measurement: measurement.toNumber(), unit } : null;
}

function toProduct(row: ProductRow): Product {
  const dimensions: Dimensions = {
    weight: measureOf(row.weightMeasurement, row.weightUnit),
    length: measureOf(row.lengthMeasurement, row.lengthUnit),
    width: measureOf(row.widthMeasurement, row.widthUnit),
    depth: measureOf(row.depthMeasurement, row.depthUnit),
  };
  const hasDimensions = Object.values(dimensions).some((m) => m !== null);
  return {
    uuid: row.uuid,
    teamCode: row.teamCode,
    sku: row.sku,
    name: row.name,
    description: row.description,
    activeState: row.activeState as ActiveState,
    podEnabled: row.podEnabled,
    podApproved: row.podApproved,
    dimensions: hasDimensions ? dimensions : null,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deletedAt: row.deletedAt,
  };
}

/** Product fields as columns; dimensions always written as all eight columns. */
function productColumns(fields: Partial<ProductFields>): Prisma.ProductUpdateInput {
  const { dimensions, ...rest } = fields;
  const data: Prisma.ProductUpdateInput = { ...rest };
  if (dimensions !== undefined) {
    for (const name of ['weight', 'length', 'width', 'depth'] as const) {
      const m = dimensions?.[name] ?? null;
      data[`${name}Measurement`] = m?.measurement ?? null;
      data[`${name}Unit`] = m?.unit ?? null;
    }
  }
  return data;
}

export async function insertProduct(db: Db, product: { uuid: string; teamCode: string; fields: ProductFields; at: Date }): Promise<Product> {
  const row = await db.product.create({
    data: {
      ...(productColumns(product.fields) as Prisma.ProductCreateInput),
      uuid: product.uuid,
      teamCode: product.teamCode,
      name: product.fields.name,
      createdAt: product.at,
      updatedAt: product.at,
    },
  });
  return toProduct(row);
}

export async function findProduct(db: Db, uuid: string): Promise<Product | null> {
  const row = await db.product.findUnique({ where: { uuid } });
  return row ? toProduct(row) : null;
}

/**
 * Reads the product and locks its row for the rest of the transaction, so concurrent changes of
 * one product apply one after the other and each event carries the version its change produced.
 */
export async function lockProduct(db: Db, uuid: string): Promise<Product | null> {
  const locked = await db.$queryRaw<{ uuid: string }[]>`SELECT uuid::text FROM catalog.product WHERE uuid = ${uuid}::uuid FOR UPDATE`;
  return locked.length > 0 ? findProduct(db, uuid) : null;
}

/** Applies the change (or the deletion) and increments `version`, returning the new state. */
export async function updateProduct(db: Db, uuid: string, change: Partial<ProductFields> & { deletedAt?: Date }, at: Date): Promise<Product> {
  const { deletedAt, ...fields } = change;
  const row = await db.product.update({
    where: { uuid },
    data: { ...productColumns(fields), ...(deletedAt ? { deletedAt } : {}), version: { increment: 1 }, updatedAt: at },
  });
  return toProduct(row);
}

export interface ProductFilter {
  teamCode: string;
  activeState?: ActiveState | undefined;
  /** Exact SKU. */
  sku?: string | undefined;
  /** Case-insensitive substring of the name or the SKU. */
  search?: string | undefined;
  includeDeleted: boolean;
}

/** `%`, `_` and `\` match literally in a search term. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function productWhere(filter: ProductFilter): Prisma.ProductWhereInput {
  const where: Prisma.ProductWhereInput = { teamCode: filter.teamCode };
  if (!filter.includeDeleted) where.deletedAt = null;
  if (filter.activeState) where.activeState = filter.activeState;
  if (filter.sku !== undefined) where.sku = filter.sku;
  if (filter.search) {
    const term = likeLiteral(filter.search);
    where.OR = [{ name: { contains: term, mode: 'insensitive' } }, { sku: { contains: term, mode: 'insensitive' } }];
  }
  return where;
}

/** Up to `take` products after the cursor, newest first (ties by uuid, descending). */
export async function listProductsNewestFirst(db: Db, filter: ProductFilter, after: ProductCursor | null, take: number): Promise<Product[]> {
  const where = productWhere(filter);
  const rows = await db.product.findMany({
    where: after
      ? // (created_at, uuid) < cursor, spelled so the first part bounds the index range instead of filtering it.
        { AND: [where, { createdAt: { lte: after.createdAt } }, { OR: [{ createdAt: { lt: after.createdAt } }, { uuid: { lt: after.uuid } }] }] }
      : where,
    orderBy: [{ createdAt: 'desc' }, { uuid: 'desc' }],
    take,
  });
  return rows.map(toProduct);
}

/** One numbered page, oldest first (ties by uuid). */
export async function listProductsOldestFirst(db: Db, filter: ProductFilter, offset: number, take: number): Promise<Product[]> {
  const rows = await db.product.findMany({
    where: productWhere(filter),
    orderBy: [{ createdAt: 'asc' }, { uuid: 'asc' }],
    skip: offset,
    take,
  });
  return rows.map(toProduct);
}

export function countProducts(db: Db, filter: ProductFilter): Promise<number> {
  return db.product.count({ where: productWhere(filter) });
}

/** The team's live products with one of these SKUs (the partial unique index answers it). */
export async function findLiveProductsBySku(db: Db, teamCode: string, skus: string[]): Promise<Product[]> {
  if (skus.length === 0) return [];
  const rows = await db.product.findMany({ where: { teamCode, deletedAt: null, sku: { in: [...new Set(skus)] } } });
  return rows.map(toProduct);
}

// --- shipping methods -----------------------------------------------------------------------------

function toShippingMethod(row: ShippingMethodRow): ShippingMethod {
  return { ...row, serviceLevel: row.serviceLevel as ServiceLevel };
}

export async function findShippingMethod(db: Db, teamCode: string, code: string): Promise<ShippingMethod | null> {
  const row = await db.shippingMethod.findUnique({ where: { teamCode_code: { teamCode, code } } });
  return row ? toShippingMethod(row) : null;
}

/** Reads the method and locks its row for the rest of the transaction (see lockProduct). */
export async function lockShippingMethod(db: Db, teamCode: string, code: string): Promise<ShippingMethod | null> {
  const locked = await db.$queryRaw<{ code: string }[]>`
    SELECT code FROM catalog.shipping_method WHERE team_code = ${teamCode} AND code = ${code} FOR UPDATE`;
  return locked.length > 0 ? findShippingMethod(db, teamCode, code) : null;
}

export async function insertShippingMethod(
  db: Db,
  method: { teamCode: string; code: string; fields: ShippingMethodFields; at: Date },
): Promise<ShippingMethod> {
  const row = await db.shippingMethod.create({
    data: { teamCode: method.teamCode, code: method.code, ...method.fields, createdAt: method.at, updatedAt: method.at },
  });
  return toShippingMethod(row);
}

/**
 * Applies the change and increments `version`. `deletedAt: null` revives a deleted method (its
 * code being created again), `deletedAt: Date` deletes it.
 */
export async function updateShippingMethod(
  db: Db,
  key: { teamCode: string; code: string },
  change: Partial<ShippingMethodFields> & { deletedAt?: Date | null },
  at: Date,
): Promise<ShippingMethod> {
  const row = await db.shippingMethod.update({
    where: { teamCode_code: key },
    data: { ...change, version: { increment: 1 }, updatedAt: at },
  });
  return toShippingMethod(row);
}

/** The team's live shipping methods (active only unless asked), in no particular order. */
export async function listShippingMethods(db: Db, teamCode: string, includeInactive: boolean): Promise<ShippingMethod[]> {
  const rows = await db.shippingMethod.findMany({
    where: { teamCode, deletedAt: null, ...(includeInactive ? {} : { active: true }) },
  });
  return rows.map(toShippingMethod);
}
