import http from 'node:http';
import express from 'express';
import pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceDefinition, ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, deleteTestTopics, eventually, testInfra, uniqueSuffix, type TestDatabase } from '@pf/platform/testing/infra';
// The real neighbours of the orders service, started in-process from source: accounts (teams and
// channels events), catalog (products and shipping methods events), stock (holds).
import { accountsService } from '../../accounts/src';
import { catalogService } from '../../catalog/src';
import { stockService } from '../../stock/src';
import { ordersService } from '../src';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'orders-test-secret-orders-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const operator: Identity = { kind: 'service', service: 'ops' };
export const backOffice = (teamCode: string): Identity => ({ kind: 'backoffice', teamCode, userId: `user@${teamCode}` });
export const channel = (teamCode: string, channelCode = 'shop'): Identity => ({ kind: 'channel', teamCode, channelId: `${teamCode}-${channelCode}` });

export interface GraphQLResponse<D = Record<string, any>> {
  data?: D | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[];
}

export interface ProblemTransport {
  problemType: string;
  detail: string;
  violations?: { property: string; message: string }[];
  extensions: Record<string, any>;
}

export interface OutboxRow {
  seq: number;
  topic: string;
  event_key: string;
  envelope: EventEnvelope<any>;
}

export interface OrdersInstance {
  instance: ServiceInstance;
  url: string;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** The real Kafka broker (default), as deployed; `false`: the in-memory bus of the embedded wiring. */
  kafka?: boolean;
  /** Settings of the orders service (ORDER_COUNTDOWN_SECONDS, ORDERS_TIMER_POLL_MS, ...). */
  ordersEnv?: Record<string, string>;
  /** Start the orders service's background work (relay, consumers, timers). Default true. */
  startOrders?: boolean;
}

/** The orders service with its real neighbours on one fresh database and one bus. */
export interface OrdersSystem {
  db: TestDatabase;
  bus: EventBus;
  pool: pg.Pool;
  urls: { accounts: string; catalog: string; stock: string; orders: string };
  orders: OrdersInstance;
  /**
   * Another orders process on the same database (a replica, or one with other settings), on the
   * same broker. With the in-memory bus it has a bus of its own: its relay's events do not reach
   * this system's bus.
   */
  startOrders(env?: Record<string, string>, opts?: { start?: boolean }): Promise<OrdersInstance>;
  gql<D = Record<string, any>>(url: string, identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>>;
  /** A call to the orders subgraph that must succeed; returns data. */
  ok<D = Record<string, any>>(identity: Identity, query: string, variables?: Record<string, unknown>, url?: string): Promise<D>;
  /** A call to the orders subgraph that must fail with exactly one Problem. */
  problem(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<ProblemTransport>;
  /** A call to another subgraph (accounts, catalog, stock) that must succeed. */
  call<D = Record<string, any>>(service: 'accounts' | 'catalog' | 'stock', identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  outboxAfter(seq?: number): Promise<OutboxRow[]>;
  lastSeq(): Promise<number>;
  close(): Promise<void>;
}

const SERVICE_ENV = { NODE_ENV: 'test', ACCOUNTS_DB_POOL_MAX: '3', CATALOG_DB_POOL_MAX: '3', STOCK_DB_POOL_MAX: '6' };

export async function startSystem(opts: SystemOptions = {}): Promise<OrdersSystem> {
  const defs: ServiceDefinition[] = [accountsService, catalogService, stockService, ordersService];
  const db = await createTestDatabase(defs.map((d) => ({ schema: d.schema!, migrationsDir: d.migrationsDir! })));
  const logger = createLogger('orders-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const kafka = opts.kafka ?? true;
  const topicPrefix = `pf-orders-test-${uniqueSuffix()}.`;
  const bus: EventBus = kafka
    ? new KafkaEventBus({
        brokers: testInfra.kafkaBrokers,
        clientId: 'orders-test',
        topicPrefix,
        logger,
        topicDefaults: { numPartitions: 1, replicationFactor: 1 },
      })
    : new InMemoryEventBus(logger, 50);
  const stops: (() => Promise<void>)[] = [];

  async function serve(def: ServiceDefinition, env: Record<string, string>, start = true, ownBus = false): Promise<OrdersInstance> {
    // The in-memory bus is one process's bus: a replica started beside the first gets its own
    // (the read models it needs are in the shared database already).
    const replicaBus = ownBus ? new InMemoryEventBus(logger, 50) : undefined;
    const instance = await def.create({
      databaseUrl: db.url,
      bus: replicaBus ?? bus,
      jwt: jwtOptions,
      logger: logger.child({ service: def.name }),
      env: { ...SERVICE_ENV, ...env },
    });
    if (start) await instance.start();
    const app = express();
    app.use(instance.app);
    const server = http.createServer(app);
    const port = await listen(server, 0, '127.0.0.1');
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await closeServer(server);
      await instance.stop();
      await replicaBus?.close();
    };
    stops.push(stop);
    return { instance, url: `http://127.0.0.1:${port}/graphql`, stop };
  }

  let accounts: OrdersInstance, catalog: OrdersInstance, stock: OrdersInstance, orders: OrdersInstance;
  const ordersEnv = (extra: Record<string, string> = {}) => ({
    ORDERS_DB_POOL_MAX: '8',
    ORDERS_PRISMA_POOL_MAX: '2',
    STOCK_URL: stock.url,
    ORDERS_TIMER_POLL_MS: '100',
    ...opts.ordersEnv,
    ...extra,
  });
  try {
    accounts = await serve(accountsService, {});
    catalog = await serve(catalogService, {});
    stock = await serve(stockService, {});
    orders = await serve(ordersService, ordersEnv(), opts.startOrders ?? true);
  } catch (err) {
    // Undone here: the caller gets no system to close, and a Kafka client left open keeps jest from exiting.
    for (const stop of [...stops].reverse()) await stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    if (kafka) await deleteTestTopics(topicPrefix).catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw err;
  }
  const pool = new pg.Pool({ connectionString: db.url, max: 3 });
  // pool.end() resolves before its clients have closed; the DROP DATABASE ... WITH (FORCE) that
  // follows may terminate one, and an idle client's error must not fail the suite.
  pool.on('error', () => undefined);
  const urls = { accounts: accounts.url, catalog: catalog.url, stock: stock.url, orders: orders.url };

  async function gql<D>(url: string, identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (identity) headers.authorization = `Bearer ${signIdentity(identity, jwtOptions)}`;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as GraphQLResponse<D>;
  }

  const system: OrdersSystem = {
    db,
    bus,
    pool,
    urls,
    orders,
    startOrders: (env = {}, o = {}) => serve(ordersService, ordersEnv(env), o.start ?? true, !kafka),
    gql,
    async ok<D>(identity: Identity, query: string, variables?: Record<string, unknown>, url = urls.orders) {
      const res = await gql<D>(url, identity, query, variables);
      if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
      return res.data as D;
    },
    async problem(identity, query, variables) {
      const res = await gql(urls.orders, identity, query, variables);
      const problem = res.errors?.[0]?.extensions?.problem;
      if (res.errors?.length !== 1 || !problem) throw new Error(`Expected one Problem, got ${JSON.stringify(res)}`);
      return problem as ProblemTransport;
    },
    async call<D>(service: 'accounts' | 'catalog' | 'stock', identity: Identity, query: string, variables?: Record<string, unknown>) {
      const res = await gql<D>(urls[service], identity, query, variables);
      if (res.errors?.length) throw new Error(`${service} GraphQL errors: ${JSON.stringify(res.errors)}`);
      return res.data as D;
    },
    async outboxAfter(seq = 0) {
      const { rows } = await pool.query<OutboxRow>('SELECT seq::int AS seq, topic, event_key, envelope FROM orders.outbox_event WHERE seq > $1 ORDER BY seq', [seq]);
      return rows;
    },
    async lastSeq() {
      const { rows } = await pool.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM orders.outbox_event');
      return Number(rows[0]?.seq ?? 0);
    },
    async close() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      await bus.close();
      // The broker keeps a suite's topics otherwise, run after run.
      if (kafka) await deleteTestTopics(topicPrefix).catch(() => undefined);
      await pool.end();
      await db.drop();
    },
  };
  return system;
}

// --- the team every suite works with -----------------------------------------------------------

export interface TeamFixture {
  teamCode: string;
  /** `<team>-shop`, `<team>-other` (API channels) and `<team>-standard`. */
  shop: Identity;
  other: Identity;
  backOffice: Identity;
  /** SKU -> product uuid. */
  products: Record<string, string>;
  /** Warehouse code -> id. */
  warehouses: Record<string, string>;
}

export interface TeamSpec {
  /** SKU -> stock per warehouse code (`leeds` GB, `berlin` DE). */
  stock?: Record<string, Partial<Record<'leeds' | 'berlin', number>>>;
}

const DEFAULT_STOCK: TeamSpec['stock'] = { 'SKU-A': { leeds: 100 }, 'SKU-B': { leeds: 50, berlin: 50 }, 'SKU-C': { berlin: 20 }, 'SKU-D': { leeds: 5 } };

/**
 * A team through the real services: accounts (team, channels `shop` and `other`), catalog
 * (products, shipping methods `std` for every country and `express` for GB only), stock
 * (warehouses, counts); then waits until the orders and stock read models have it all.
 */
export async function createTeam(s: OrdersSystem, teamCode = `t${uniqueSuffix()}`, spec: TeamSpec = {}): Promise<TeamFixture> {
  const bo = backOffice(teamCode);
  await s.call('accounts', operator, `mutation ($input: CreateTeamInput!) { createTeam(input: $input) { code } }`, { input: { code: teamCode, name: `Team ${teamCode}` } });
  for (const code of ['shop', 'other']) {
    await s.call('accounts', bo, `mutation ($input: CreateChannelInput!) { createChannel(input: $input) { id } }`, { input: { code, name: code } });
  }
  const stock = spec.stock ?? DEFAULT_STOCK!;
  const products: Record<string, string> = {};
  for (const sku of Object.keys(stock)) {
    const r = await s.call<{ createProduct: { uuid: string } }>('catalog', bo, `mutation ($input: CreateProductInput!) { createProduct(input: $input) { uuid } }`, {
      input: { sku, name: `Product ${sku}` },
    });
    products[sku] = r.createProduct.uuid;
  }
  await s.call('catalog', bo, `mutation ($input: CreateShippingMethodInput!) { createShippingMethod(input: $input) { code } }`, {
    input: { code: 'std', name: 'Standard', carrier: 'Royal Mail', priority: 50 },
  });
  await s.call('catalog', bo, `mutation ($input: CreateShippingMethodInput!) { createShippingMethod(input: $input) { code } }`, {
    input: { code: 'express', name: 'Express', carrier: 'DHL', countryCodes: ['GB'], priority: 10 },
  });
  const warehouses: Record<string, string> = {};
  for (const [code, countryCode] of [
    ['leeds', 'GB'],
    ['berlin', 'DE'],
  ] as const) {
    const r = await s.call<{ createWarehouse: { id: string } }>('stock', bo, `mutation ($input: CreateWarehouseInput!) { createWarehouse(input: $input) { id } }`, {
      input: { code, name: code, countryCode },
    });
    warehouses[code] = r.createWarehouse.id;
  }
  // Stock knows products from catalog events: wait for them before counting stock.
  await eventually(async () => {
    const { rows } = await s.pool.query('SELECT count(*)::int AS n FROM stock.product WHERE team_code = $1', [teamCode]);
    return rows[0].n === Object.keys(products).length ? true : undefined;
  });
  for (const [sku, perWarehouse] of Object.entries(stock)) {
    for (const [code, quantity] of Object.entries(perWarehouse)) {
      await s.call('stock', bo, `mutation ($input: SetStockInput!) { setStock(input: $input) { onHand } }`, {
        input: { productUuid: products[sku], warehouseId: warehouses[code], quantity, reason: 'initial count' },
      });
    }
  }
  await waitForReadModels(s, teamCode, Object.keys(products).length);
  // And the stock figures the counts made: an order created before its products' figures arrived
  // reads not-fulfillable, then changes (and its updatedAt with it) when they do.
  const figures = Object.entries(stock).map(([sku, perWarehouse]) => [products[sku]!, Object.values(perWarehouse).reduce((a, b) => a + b, 0)] as const);
  await eventually(async () => {
    const { rows } = await s.pool.query<{ product_uuid: string; stock: number }>('SELECT product_uuid, stock FROM orders.stock_figure WHERE team_code = $1', [teamCode]);
    const known = new Map(rows.map((r) => [r.product_uuid, r.stock]));
    // 10000 more for a print-on-demand product (rule S1)
    return figures.every(([uuid, total]) => known.get(uuid) === total || known.get(uuid) === total + 10_000) ? true : undefined;
  });
  return { teamCode, shop: channel(teamCode, 'shop'), other: channel(teamCode, 'other'), backOffice: bo, products, warehouses };
}

/** Waits until the orders read models know the team, its three channels, its products and both shipping methods. */
export async function waitForReadModels(s: OrdersSystem, teamCode: string, productCount: number): Promise<void> {
  await eventually(async () => {
    const { rows } = await s.pool.query(
      `SELECT (SELECT count(*) FROM orders.team WHERE team_code = $1)::int AS teams,
              (SELECT count(*) FROM orders.channel WHERE team_code = $1)::int AS channels,
              (SELECT count(*) FROM orders.product WHERE team_code = $1)::int AS products,
              (SELECT count(*) FROM orders.shipping_method WHERE team_code = $1)::int AS methods`,
      [teamCode],
    );
    const r = rows[0];
    return r.teams === 1 && r.channels === 3 && r.products === productCount && r.methods === 2 ? true : undefined;
  });
}

/** Deactivates (or reactivates) the team and waits until orders knows. */
export async function setTeamActive(s: OrdersSystem, teamCode: string, active: boolean): Promise<void> {
  await s.call('accounts', operator, `mutation ($code: ID!, $input: UpdateTeamInput!) { updateTeam(code: $code, input: $input) { code } }`, {
    code: teamCode,
    input: { active },
  });
  await eventually(async () => {
    const { rows } = await s.pool.query('SELECT active FROM orders.team WHERE team_code = $1', [teamCode]);
    return rows[0]?.active === active ? true : undefined;
  });
}

// --- GraphQL documents ---------------------------------------------------------------------------

export const ORDER_FIELDS = /* GraphQL */ `
  uuid orderNumber printTrailOrderNumber status fulfillableStatus fulfillableFrom scheduledAt confirmedAt createdAt updatedAt
  stockHeld origin channelId teamCode
  shippingDetails { firstName lastName companyName address1 address2 address3 address4 city postalCode state { name code } country { name code } email phone }
  orderLines { lineNumber product { sku uuid } quantity }
  fulfilments {
    uuid status supplierLocation { code countryCode } shippingMethod { code name } lines { lineNumber sku quantity }
    trackingDetails { carrier trackingNumber trackingUrl courier number url methodCode methodName }
  }
  trackingDetails { carrier trackingNumber trackingUrl courier number url methodName }
`;

export const CREATE_ORDER = /* GraphQL */ `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ${ORDER_FIELDS} } }`;
export const CONFIRM_ORDER = /* GraphQL */ `mutation ($uuid: ID!, $input: ConfirmOrderInput) { confirmOrder(uuid: $uuid, input: $input) { ${ORDER_FIELDS} } }`;
export const CANCEL_ORDER = /* GraphQL */ `mutation ($uuid: ID!) { cancelOrder(uuid: $uuid) { ${ORDER_FIELDS} } }`;
export const AMEND_ORDER = /* GraphQL */ `
  mutation ($uuid: ID!, $input: AmendOrderLinesInput!) {
    amendOrderLines(uuid: $uuid, input: $input) {
      order { ${ORDER_FIELDS} }
      amendment {
        addedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        removedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        changedLines { lineNumber sku previousSku quantityBefore quantityAfter }
        unchangedLineNumbers
        replacedFulfilments { supplierLocation { code countryCode } previousUuid newUuid }
        countdownRestarted
      }
    }
  }`;
export const ORDER = /* GraphQL */ `query ($uuid: ID!) { order(uuid: $uuid) { ${ORDER_FIELDS} } }`;
export const ORDERS = /* GraphQL */ `
  query ($filter: OrderFilter, $page: Int, $perPage: Int, $sort: OrderSort) {
    orders(filter: $filter, page: $page, perPage: $perPage, sort: $sort) { items { uuid orderNumber status origin channelId updatedAt } page perPage total lastPage from to }
  }`;
export const ENTER_ORDER = /* GraphQL */ `mutation ($input: EnterOrderInput!) { enterOrder(input: $input) { ${ORDER_FIELDS} } }`;
export const IMPORT_ORDERS = /* GraphQL */ `mutation ($channelId: ID!, $orders: [ImportOrderInput!]!) { importOrders(channelId: $channelId, orders: $orders) { orders { ${ORDER_FIELDS} } } }`;
export const SAVE_AS_DRAFT = /* GraphQL */ `mutation ($uuid: ID!, $reason: String) { saveOrderAsDraft(uuid: $uuid, reason: $reason) { ${ORDER_FIELDS} } }`;
export const QUEUE_ORDER = /* GraphQL */ `mutation ($uuid: ID!, $code: String) { queueOrder(uuid: $uuid, shippingMethodCode: $code) { ${ORDER_FIELDS} } }`;
export const SCHEDULE_ORDER = /* GraphQL */ `mutation ($uuid: ID!, $at: String!, $code: String) { scheduleOrder(uuid: $uuid, scheduledAt: $at, shippingMethodCode: $code) { ${ORDER_FIELDS} } }`;
export const PROCESS_NOW = /* GraphQL */ `mutation ($uuid: ID!, $code: String) { processOrderNow(uuid: $uuid, shippingMethodCode: $code) { ${ORDER_FIELDS} } }`;
export const REJECT_ADDRESS = /* GraphQL */ `mutation ($uuid: ID!, $reason: String) { rejectShippingAddress(uuid: $uuid, reason: $reason) { ${ORDER_FIELDS} } }`;
export const CORRECT_SHIPPING = /* GraphQL */ `mutation ($uuid: ID!, $shippingDetails: ShippingDetailsInput!) { correctShippingDetails(uuid: $uuid, shippingDetails: $shippingDetails) { ${ORDER_FIELDS} } }`;
export const NOT_SENT = /* GraphQL */ `mutation ($uuid: ID!, $reason: String) { markOrderNotSent(uuid: $uuid, reason: $reason) { ${ORDER_FIELDS} } }`;
export const SET_FULFILLABLE = /* GraphQL */ `mutation ($uuid: ID!, $value: String!) { setFulfillableStatus(uuid: $uuid, fulfillableStatus: $value) { ${ORDER_FIELDS} } }`;
export const HISTORY = /* GraphQL */ `query ($uuid: ID!) { order(uuid: $uuid) { statusHistory { from to at actor reason } } }`;
export const PROGRESS = /* GraphQL */ `
  mutation ($fulfilmentUuid: ID!, $input: FulfilmentProgressInput!) { recordFulfilmentProgress(fulfilmentUuid: $fulfilmentUuid, input: $input) { ${ORDER_FIELDS} } }`;

export const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Analytical Row',
  city: 'London',
  postalCode: 'N1 9GU',
  country: { name: 'United Kingdom', code: 'GB' },
  email: 'ada@example.com',
};

export function orderInput(orderNumber: string, lines: [string, number][] = [['SKU-A', 2]], extra: Record<string, unknown> = {}) {
  return { orderNumber, orderLines: lines.map(([sku, quantity], i) => ({ lineNumber: i + 1, product: { sku }, quantity })), shippingDetails: ADDRESS, ...extra };
}

/** Stock's view of an order's holds (placed ones by default). */
export async function holdsOf(s: OrdersSystem, orderUuid: string, status = 'placed'): Promise<{ line_number: number; quantity: number; warehouse_id: string | null }[]> {
  const { rows } = await s.pool.query(
    `SELECT line_number, quantity, warehouse_id::text AS warehouse_id FROM stock.stock_hold WHERE order_uuid = $1 AND status = $2 ORDER BY line_number, warehouse_id`,
    [orderUuid, status],
  );
  return rows;
}
