import { eventually } from '@pf/platform/testing/infra';
import { backOffice, type System } from './system';

/**
 * Catalog and stock data for the edge's tests, made the way a merchant makes it: back-office
 * GraphQL through the gateway (catalog and stock use cases, their events, the stock read model).
 */

export interface SeededProduct {
  uuid: string;
  sku: string | null;
  name: string;
  activeState: string;
  podEnabled: boolean;
  podApproved: boolean;
  dimensions: Record<string, { measurement: number; unit: string } | null> | null;
  createdAt: string;
  updatedAt: string;
}

const PRODUCT_FIELDS = `uuid sku name activeState podEnabled podApproved createdAt updatedAt
  dimensions { weight { measurement unit } length { measurement unit } width { measurement unit } depth { measurement unit } }`;

export interface NewProduct {
  sku?: string | null;
  name?: string;
  activeState?: 'active' | 'inactive' | 'pre-order';
  podEnabled?: boolean;
  podApproved?: boolean;
  dimensions?: Record<string, { measurement: number; unit: string }> | null;
}

export async function createProduct(sys: System, team: string, input: NewProduct): Promise<SeededProduct> {
  const { createProduct } = await sys.graph(
    backOffice(team),
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${PRODUCT_FIELDS} } }`,
    { input: { name: input.name ?? `Product ${input.sku ?? 'without SKU'}`, ...input } },
  );
  return createProduct as SeededProduct;
}

export async function deleteProduct(sys: System, team: string, uuid: string): Promise<void> {
  await sys.graph(backOffice(team), 'mutation ($uuid: ID!) { deleteProduct(uuid: $uuid) { uuid } }', { uuid });
}

export async function createShippingMethod(sys: System, team: string, input: Record<string, unknown>): Promise<void> {
  await sys.graph(backOffice(team), 'mutation ($input: CreateShippingMethodInput!) { createShippingMethod(input: $input) { code } }', { input });
}

export async function createWarehouse(sys: System, team: string, code: string, enabled = true): Promise<string> {
  const { createWarehouse } = await sys.graph(
    backOffice(team),
    'mutation ($input: CreateWarehouseInput!) { createWarehouse(input: $input) { id } }',
    { input: { code, name: `Warehouse ${code}`, countryCode: 'GB', enabled } },
  );
  return createWarehouse.id as string;
}

export async function setStock(sys: System, team: string, productUuid: string, warehouseId: string, quantity: number): Promise<void> {
  await sys.graph(backOffice(team), 'mutation ($input: SetStockInput!) { setStock(input: $input) { onHand } }', {
    input: { productUuid, warehouseId, quantity, reason: 'count' },
  });
}

/**
 * Waits until the stock service's read model has caught up with every product change of the
 * catalog (the catalog's events travel through its outbox and the bus). Reads both schemas only
 * to know when to go on; no assertion is made on them.
 */
export async function stockCaughtUp(sys: System): Promise<void> {
  await eventually(async () => {
    const [row] = await sys.sql<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM catalog.product c
         LEFT JOIN stock.product s ON s.uuid = c.uuid AND s.version >= c.version
        WHERE s.uuid IS NULL`,
    );
    return row!.behind === 0 ? true : undefined;
  });
}
