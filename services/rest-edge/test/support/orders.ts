import { eventually } from '@pf/platform/testing/infra';
import { backOffice, type EdgeResponse, type RunningEdge, type System } from './system';

/**
 * Helpers of the order endpoints' tests: the REST calls (each response checked against the OpenAPI
 * document), the merchant's back-office actions on the orders subgraph (through the gateway, as
 * the merchant application calls them), and waits for the orders service's read models.
 */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The document's path template of a concrete order path (`/orders/<uuid>/confirm` -> `/orders/{orderUuid}/confirm`). */
export function orderTemplateOf(path: string): string {
  const bare = path.split('?')[0]!;
  const m = /^\/orders\/[^/]*(\/(confirm|lines|cancel))?$/.exec(bare);
  if (m) return `/orders/{orderUuid}${m[1] ?? ''}`;
  return bare;
}

export interface OrdersApi {
  call(method: string, path: string, opts?: { token?: string; body?: unknown; channel?: string; rawBody?: string }): Promise<EdgeResponse>;
}

/** REST calls on one channel with its token; every response is checked against the document. */
export function ordersApi(sys: System, edge: () => RunningEdge, channelId: string, token: () => string): OrdersApi {
  return {
    async call(method, path, opts = {}) {
      const res = await edge().call(method, `/v1/channels/${opts.channel ?? channelId}${path}`, {
        token: opts.token ?? token(),
        ...(opts.body !== undefined ? { body: opts.body } : {}),
        ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody, contentType: 'application/json' } : {}),
      });
      sys.contract.check(method, orderTemplateOf(path), res);
      if (res.headers['service-api-version'] !== '1.2.0') throw new Error(`no Service-Api-Version on ${method} ${path}`);
      return res;
    },
  };
}

// --- catalog and stock, as the merchant sets them up ------------------------------------------

export async function createProduct(sys: System, team: string, input: Record<string, unknown>): Promise<{ uuid: string; sku: string }> {
  const { createProduct } = await sys.graph(backOffice(team), 'mutation ($input: CreateProductInput!) { createProduct(input: $input) { uuid sku } }', {
    input: { name: `Product ${String(input.sku)}`, ...input },
  });
  return createProduct;
}

export async function createWarehouse(sys: System, team: string, code: string, countryCode: string): Promise<string> {
  const { createWarehouse } = await sys.graph(backOffice(team), 'mutation ($input: CreateWarehouseInput!) { createWarehouse(input: $input) { id } }', {
    input: { code, name: `Warehouse ${code}`, countryCode, enabled: true },
  });
  return createWarehouse.id as string;
}

export async function setStock(sys: System, team: string, productUuid: string, warehouseId: string, quantity: number): Promise<void> {
  await sys.graph(backOffice(team), 'mutation ($input: SetStockInput!) { setStock(input: $input) { onHand } }', {
    input: { productUuid, warehouseId, quantity, reason: 'count' },
  });
}

export async function createShippingMethod(sys: System, team: string, input: Record<string, unknown>): Promise<void> {
  await sys.graph(backOffice(team), 'mutation ($input: CreateShippingMethodInput!) { createShippingMethod(input: $input) { code } }', { input });
}

/** A product's stock per warehouse (back-office), to see what is held. */
export async function warehouseStock(sys: System, team: string, productUuid: string): Promise<Record<string, { onHand: number; held: number }>> {
  const { product } = await sys.graph(
    backOffice(team),
    'query ($uuid: ID!) { product(uuid: $uuid) { warehouseStock { warehouse { code } onHand held } } }',
    { uuid: productUuid },
  );
  const out: Record<string, { onHand: number; held: number }> = {};
  for (const w of product.warehouseStock as { warehouse: { code: string }; onHand: number; held: number }[]) {
    out[w.warehouse.code] = { onHand: w.onHand, held: w.held };
  }
  return out;
}

/** The stock service's holds of an order (back-office), every status. */
export async function orderHolds(sys: System, team: string, orderUuid: string): Promise<{ lineNumber: number; quantity: number; status: string; location: { code: string } }[]> {
  const { orderHolds } = await sys.graph(
    backOffice(team),
    'query ($uuid: ID!) { orderHolds(orderUuid: $uuid) { lineNumber quantity status location { code } } }',
    { uuid: orderUuid },
  );
  return orderHolds;
}

// --- the merchant's actions on orders (back-office GraphQL) -----------------------------------

const BACK_OFFICE_ORDER = 'uuid status confirmedAt origin channelId fulfilments { uuid status supplierLocation { code } }';

export interface BackOfficeOrder {
  uuid: string;
  status: string;
  confirmedAt: string | null;
  origin: string;
  channelId: string;
  fulfilments: { uuid: string; status: string; supplierLocation: { code: string } }[];
}

export async function enterOrder(sys: System, team: string, input: Record<string, unknown>): Promise<BackOfficeOrder> {
  const { enterOrder } = await sys.graph(backOffice(team), `mutation ($input: EnterOrderInput!) { enterOrder(input: $input) { ${BACK_OFFICE_ORDER} } }`, {
    input,
  });
  return enterOrder;
}

export async function importOrder(sys: System, team: string, channelId: string, input: Record<string, unknown>): Promise<BackOfficeOrder> {
  const { importOrders } = await sys.graph(
    backOffice(team),
    `mutation ($channelId: ID!, $orders: [ImportOrderInput!]!) { importOrders(channelId: $channelId, orders: $orders) { orders { ${BACK_OFFICE_ORDER} } } }`,
    { channelId, orders: [input] },
  );
  return importOrders.orders[0];
}

/** One of the back-office order actions taking `(uuid, ...)` and returning the order. */
export async function orderAction(
  sys: System,
  team: string,
  action: 'saveOrderAsDraft' | 'processOrderNow' | 'rejectShippingAddress' | 'markOrderNotSent' | 'queueOrder',
  uuid: string,
): Promise<BackOfficeOrder> {
  const data = await sys.graph(backOffice(team), `mutation ($uuid: ID!) { ${action}(uuid: $uuid) { ${BACK_OFFICE_ORDER} } }`, { uuid });
  return data[action];
}

export async function fulfilmentProgress(
  sys: System,
  team: string,
  fulfilmentUuid: string,
  input: { status: string; trackingDetails?: Record<string, string>[] },
): Promise<BackOfficeOrder> {
  const { recordFulfilmentProgress } = await sys.graph(
    backOffice(team),
    `mutation ($uuid: ID!, $input: FulfilmentProgressInput!) { recordFulfilmentProgress(fulfilmentUuid: $uuid, input: $input) { ${BACK_OFFICE_ORDER} } }`,
    { uuid: fulfilmentUuid, input },
  );
  return recordFulfilmentProgress;
}

export async function backOfficeOrder(sys: System, team: string, uuid: string): Promise<BackOfficeOrder> {
  const { order } = await sys.graph(backOffice(team), `query ($uuid: ID!) { order(uuid: $uuid) { ${BACK_OFFICE_ORDER} } }`, { uuid });
  return order;
}

// --- read models ------------------------------------------------------------------------------

/**
 * Waits until the orders service's read models (teams, channels, products, shipping methods, fed
 * by the accounts' and catalog's events) have caught up with their sources, and the stock
 * service's product read model with the catalog. Reads the schemas only to know when to go on.
 */
export async function ordersCaughtUp(sys: System): Promise<void> {
  await eventually(async () => {
    const [row] = await sys.sql<{ behind: number }>(`
      SELECT
        (SELECT count(*) FROM catalog.product c LEFT JOIN orders.product o ON o.uuid = c.uuid AND o.version >= c.version WHERE o.uuid IS NULL)
      + (SELECT count(*) FROM catalog.product c LEFT JOIN stock.product s ON s.uuid = c.uuid AND s.version >= c.version WHERE s.uuid IS NULL)
      + (SELECT count(*) FROM catalog.shipping_method c
           LEFT JOIN orders.shipping_method o ON o.team_code = c.team_code AND o.code = c.code AND o.version >= c.version
          WHERE o.code IS NULL)
      + (SELECT count(*) FROM accounts.team a LEFT JOIN orders.team o ON o.team_code = a.code AND o.active = a.active WHERE o.team_code IS NULL)
      + (SELECT count(*) FROM accounts.channel a
           LEFT JOIN orders.channel o ON o.channel_id = a.id AND o.active = a.active WHERE o.channel_id IS NULL) AS behind`);
    return Number(row!.behind) === 0 ? true : undefined;
  });
}

/** Lines for an order: `[sku, quantity]` pairs numbered from 1. */
export function lines(...items: [sku: string, quantity: number][]): { lineNumber: number; product: { sku: string }; quantity: number }[] {
  return items.map(([sku, quantity], i) => ({ lineNumber: i + 1, product: { sku }, quantity }));
}

export const GB_ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Park Row',
  city: 'Leeds',
  postalCode: 'LS1 5HD',
  country: { name: 'United Kingdom', code: 'GB' },
  email: 'ada@example.com',
};

/** The REST shipping details an order has after being sent `GB_ADDRESS`. */
export const GB_ADDRESS_RESOURCE = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  companyName: null,
  address1: '1 Park Row',
  address2: null,
  address3: null,
  address4: null,
  city: 'Leeds',
  postalCode: 'LS1 5HD',
  state: { name: null, code: null },
  country: { name: 'United Kingdom', code: 'GB' },
  email: 'ada@example.com',
  phone: null,
};

export interface SeededCatalog {
  /** By SKU. */
  products: Record<string, { uuid: string; sku: string }>;
  warehouses: Record<string, string>;
}

/**
 * A team's catalogue for order tests: two warehouses (leeds GB, berlin DE), products stocked in
 * one each, a print-on-demand product (never short), a scarce one (3 in leeds), a sold-out one,
 * and two shipping methods (`rm48` to GB and DE, preferred; `dhl-de` to DE only).
 */
export async function seedCatalog(sys: System, team: string): Promise<SeededCatalog> {
  const warehouses = { leeds: await createWarehouse(sys, team, 'leeds', 'GB'), berlin: await createWarehouse(sys, team, 'berlin', 'DE') };
  const products: SeededCatalog['products'] = {};
  const stocked: [sku: string, warehouse: keyof typeof warehouses, quantity: number][] = [
    ['MUG', 'leeds', 1000],
    ['CAP', 'berlin', 1000],
    ['SCARCE', 'leeds', 3],
    ['SOLDOUT', 'leeds', 0],
  ];
  for (const [sku] of stocked) products[sku] = await createProduct(sys, team, { sku });
  products.POSTER = await createProduct(sys, team, { sku: 'POSTER', podEnabled: true, podApproved: true });
  // Stock is counted against the stock service's read model of the products: wait for it.
  await eventually(async () => {
    const [row] = await sys.sql<{ n: number }>('SELECT count(*)::int AS n FROM stock.product WHERE uuid = ANY($1::uuid[])', [Object.values(products).map((p) => p.uuid)]);
    return row!.n === Object.keys(products).length ? true : undefined;
  });
  for (const [sku, warehouse, quantity] of stocked) await setStock(sys, team, products[sku]!.uuid, warehouses[warehouse], quantity);
  await createShippingMethod(sys, team, { code: 'rm48', name: 'Royal Mail Tracked 48', carrier: 'Royal Mail', countryCodes: ['GB', 'DE'], priority: 10 });
  await createShippingMethod(sys, team, { code: 'dhl-de', name: 'DHL Paket', carrier: 'DHL', countryCodes: ['DE'], priority: 20 });
  return { products, warehouses };
}
