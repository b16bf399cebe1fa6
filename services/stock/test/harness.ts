import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { ProductCreated, ProductUpdated, type ProductState } from '@pf/platform/events/catalog';
import { StockLevelRevised } from '@pf/platform/events/stock';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { openStockDb, stockService, StockUseCases, STOCK_MIGRATIONS_DIR } from '../src';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'stock-test-secret-stock-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const ordersService: Identity = { kind: 'service', service: 'orders' };
export const backOffice = (teamCode: string): Identity => ({ kind: 'backoffice', teamCode, userId: `user@${teamCode}` });
export const channelOf = (teamCode: string): Identity => ({ kind: 'channel', teamCode, channelId: `${teamCode}-shop` });

export interface GraphQLResponse<D = Record<string, any>> {
  data?: D | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[];
}

/** The stock service on a fresh, migrated database, served over real HTTP. */
export interface StockHarness {
  db: TestDatabase;
  /** For looking at rows directly (outbox, stock levels, holds). */
  pool: pg.Pool;
  instance: ServiceInstance;
  url: string;
  gql<D = Record<string, any>>(identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>>;
  /** Like gql, but fails the test on any error and returns data. */
  ok<D = Record<string, any>>(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  /** The single error's problem transport (fails if the call did not fail with a Problem). */
  problem(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<{ problemType: string; detail: string; violations?: { property: string; message: string }[] }>;
  /**
   * Makes a catalog product known to the stock service the way production does: a
   * `product.created` event applied by the read model's consumer code (inbox + version check).
   */
  product(teamCode: string, state?: Partial<ProductState>): Promise<ProductState>;
  /** Applies a `product.updated` with the next version. */
  updateProduct(state: ProductState, change: Partial<ProductState>): Promise<ProductState>;
  /** Applies any catalog event through the read model's consumer code. */
  applyEvent(event: EventEnvelope): Promise<string>;
  close(): Promise<void>;
}

export async function startStock(opts: { bus?: EventBus; startBackgroundWork?: boolean } = {}): Promise<StockHarness> {
  const db = await createTestDatabase([{ schema: 'stock', migrationsDir: STOCK_MIGRATIONS_DIR }]);
  const logger = createLogger('stock-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const bus = opts.bus ?? new InMemoryEventBus(logger);
  const instance = await stockService.create({
    databaseUrl: db.url,
    bus,
    jwt: jwtOptions,
    logger,
    env: { NODE_ENV: 'test', STOCK_DB_POOL_MAX: '8', STOCK_POD_COUNTRY_CODE: 'GB' },
  });
  if (opts.startBackgroundWork) await instance.start();
  const app = express();
  app.use(instance.app);
  const server = http.createServer(app);
  const port = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}/graphql`;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const fixtureDb = openStockDb(db.url, 2);
  const fixtures = new StockUseCases({ pool: fixtureDb.pool, prisma: fixtureDb.prisma, podCountryCode: 'GB' });

  async function gql<D>(identity: Identity | null, query: string, variables?: Record<string, unknown>) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (identity) headers.authorization = `Bearer ${signIdentity(identity, jwtOptions)}`;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as GraphQLResponse<D>;
  }

  return {
    db,
    pool,
    instance,
    url,
    gql,
    async ok<D>(identity: Identity, query: string, variables?: Record<string, unknown>) {
      const res = await gql<D>(identity, query, variables);
      if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
      return res.data as D;
    },
    async problem(identity, query, variables) {
      const res = await gql(identity, query, variables);
      const problem = res.errors?.[0]?.extensions?.problem;
      if (res.errors?.length !== 1 || !problem) throw new Error(`Expected one Problem, got ${JSON.stringify(res)}`);
      return problem;
    },
    async product(teamCode, state = {}) {
      const full: ProductState = {
        productUuid: randomUUID(),
        teamCode,
        sku: `SKU-${randomUUID().slice(0, 8)}`,
        name: 'A product',
        activeState: 'active',
        podEnabled: false,
        podApproved: false,
        deleted: false,
        version: 1,
        ...state,
      };
      await fixtures.applyCatalogProductEvent(ProductCreated.create(full.productUuid, full));
      return full;
    },
    async updateProduct(state, change) {
      const next = { ...state, ...change, version: state.version + 1 };
      await fixtures.applyCatalogProductEvent(ProductUpdated.create(next.productUuid, next));
      return next;
    },
    applyEvent: (event) => fixtures.applyCatalogProductEvent(event),
    async close() {
      await closeServer(server);
      await instance.stop();
      await bus.close();
      await fixtureDb.close();
      await pool.end();
      await db.drop();
    },
  };
}

export const CREATE_WAREHOUSE = /* GraphQL */ `
  mutation ($input: CreateWarehouseInput!) {
    createWarehouse(input: $input) { id code name countryCode enabled createdAt updatedAt }
  }`;

export const UPDATE_WAREHOUSE = /* GraphQL */ `
  mutation ($id: ID!, $input: UpdateWarehouseInput!) { updateWarehouse(id: $id, input: $input) { id code name countryCode enabled } }`;

export const SET_STOCK = /* GraphQL */ `
  mutation ($input: SetStockInput!) {
    setStock(input: $input) { productUuid onHand held available warehouse { id code enabled } }
  }`;

export const ADJUST_STOCK = /* GraphQL */ `
  mutation ($input: AdjustStockInput!) {
    adjustStock(input: $input) { productUuid onHand held available warehouse { id code } }
  }`;

export const STOCK_LEVELS = /* GraphQL */ `
  query ($teamCode: ID, $after: String, $first: Int) {
    stockLevels(teamCode: $teamCode, after: $after, first: $first) { items { productUuid sku stock } nextCursor }
  }`;

export const PRODUCT_STOCK = /* GraphQL */ `
  query ($representations: [_Any!]!) {
    _entities(representations: $representations) {
      ... on Product { uuid stock warehouseStock { warehouse { code enabled } onHand held available } }
    }
  }`;

export const PRODUCT_FIGURE = /* GraphQL */ `
  query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Product { uuid stock } } }`;

export const HOLD_STOCK = /* GraphQL */ `
  mutation ($input: HoldStockInput!) {
    holdStock(input: $input) {
      __typename
      ... on StockHeld { orderUuid lines { lineNumber productUuid sku quantity allocations { quantity location { code countryCode printOnDemand } } } previousHoldIds }
      ... on StockShort { orderUuid shortages { productUuid sku requested available } }
    }
  }`;

export const RELEASE_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!) { releaseHolds(orderUuid: $orderUuid) { lineNumber productUuid quantity status releasedAt location { code } } }`;

export const RELEASE_HOLDS_AT = /* GraphQL */ `
  mutation ($orderUuid: ID!, $locationCodes: [String!]) {
    releaseHolds(orderUuid: $orderUuid, locationCodes: $locationCodes) { id lineNumber productUuid quantity status releasedAt location { code } }
  }`;

export const REINSTATE_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $holdIds: [ID!]!) {
    reinstateHolds(orderUuid: $orderUuid, holdIds: $holdIds) { id lineNumber quantity status releasedAt location { code } }
  }`;

export const RESTORE_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $holdIds: [ID!]!) {
    restoreHolds(orderUuid: $orderUuid, holdIds: $holdIds) { id lineNumber quantity status releasedAt location { code } }
  }`;

export const CONSUME_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $locationCodes: [String!]) {
    consumeHolds(orderUuid: $orderUuid, locationCodes: $locationCodes) { id lineNumber productUuid quantity status consumedAt location { code } }
  }`;

export const RETURN_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $locationCodes: [String!]) {
    returnHolds(orderUuid: $orderUuid, locationCodes: $locationCodes) { id lineNumber productUuid quantity taken status consumedAt returnedAt location { code } }
  }`;

export const RECONSUME_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $holdIds: [ID!]!) {
    reconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds) { id lineNumber quantity taken status consumedAt returnedAt location { code } }
  }`;

export const UNCONSUME_HOLDS = /* GraphQL */ `
  mutation ($orderUuid: ID!, $holdIds: [ID!]!) {
    unconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds) { id lineNumber quantity taken status consumedAt returnedAt location { code } }
  }`;

export const ORDER_HOLDS = /* GraphQL */ `
  query ($orderUuid: ID!) {
    orderHolds(orderUuid: $orderUuid) { orderUuid lineNumber productUuid sku quantity status placedAt releasedAt consumedAt location { code countryCode printOnDemand } }
  }`;

/** Creates a warehouse as the team's back-office; returns its id. */
export async function warehouse(h: StockHarness, teamCode: string, code: string, opts: { countryCode?: string; enabled?: boolean } = {}): Promise<string> {
  const { createWarehouse } = await h.ok(backOffice(teamCode), CREATE_WAREHOUSE, {
    input: { code, name: `Warehouse ${code}`, countryCode: opts.countryCode ?? 'GB', enabled: opts.enabled ?? true },
  });
  return createWarehouse.id;
}

/** Sets on-hand stock as the team's back-office. */
export async function setStock(h: StockHarness, teamCode: string, productUuid: string, warehouseId: string, quantity: number): Promise<void> {
  await h.ok(backOffice(teamCode), SET_STOCK, { input: { productUuid, warehouseId, quantity, reason: 'test count' } });
}

/** Holds stock for an order as the orders service does; the order must be held in full. */
export async function holdOrder(h: StockHarness, teamCode: string, orderUuid: string, lines: { lineNumber: number; productUuid: string; quantity: number }[]) {
  const { holdStock } = await h.ok(ordersService, HOLD_STOCK, { input: { teamCode, orderUuid, lines } });
  if (holdStock.__typename !== 'StockHeld') throw new Error(`Expected StockHeld, got ${JSON.stringify(holdStock)}`);
  return holdStock;
}

/** The product's stock rows by warehouse code, with the placed holds on each (`held` must equal them). */
export async function stockRowsWithPlaced(h: StockHarness, productUuid: string) {
  const { rows } = await h.pool.query<{ code: string; on_hand: number; held: number; placed: number }>(
    `SELECT w.code, s.on_hand, s.held,
            (SELECT COALESCE(sum(quantity), 0)::int FROM stock.stock_hold x WHERE x.product_uuid = s.product_uuid AND x.warehouse_id = s.warehouse_id AND x.status = 'placed') AS placed
       FROM stock.stock_level s JOIN stock.warehouse w ON w.id = s.warehouse_id WHERE s.product_uuid = $1 ORDER BY w.code`,
    [productUuid],
  );
  return rows;
}

/** The order's holds as `[line, location code, quantity, status]`, by line then location code. */
export async function holdRowsOf(h: StockHarness, teamCode: string, orderUuid: string): Promise<[number, string, number, string][]> {
  return ((await h.ok(backOffice(teamCode), ORDER_HOLDS, { orderUuid })).orderHolds as any[])
    .map((x): [number, string, number, string] => [x.lineNumber, x.location.code, x.quantity, x.status])
    .sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
}

/** The figure the feed reports for each product of the team (all pages). */
export async function feedOf(h: StockHarness, identity: Identity, teamCode?: string, first = 5000): Promise<Map<string, { sku: string | null; stock: number }>> {
  const out = new Map<string, { sku: string | null; stock: number }>();
  let after: string | null = null;
  do {
    const { stockLevels }: { stockLevels: { items: { productUuid: string; sku: string | null; stock: number }[]; nextCursor: string | null } } = await h.ok(
      identity,
      STOCK_LEVELS,
      { teamCode, after, first },
    );
    for (const i of stockLevels.items) out.set(i.productUuid, { sku: i.sku, stock: i.stock });
    after = stockLevels.nextCursor;
  } while (after);
  return out;
}

export interface OutboxRow {
  topic: string;
  event_key: string;
  envelope: EventEnvelope;
}

export async function lastOutboxSeq(h: StockHarness): Promise<number> {
  const { rows } = await h.pool.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM stock.outbox_event');
  return Number(rows[0]?.seq ?? 0);
}

export async function outboxAfter(h: StockHarness, seq: number): Promise<OutboxRow[]> {
  const { rows } = await h.pool.query<OutboxRow>('SELECT topic, event_key, envelope FROM stock.outbox_event WHERE seq > $1 ORDER BY seq', [seq]);
  return rows;
}

/** The figure events (changed or revised) written after `seq`, as [type, previousStock, stock]. */
export async function figureEventsAfter(h: StockHarness, seq: number): Promise<[string, number | null, number][]> {
  return (await outboxAfter(h, seq)).map((r) => {
    // The revised payload's schema is the changed one's with previousStock nullable: it reads both.
    const figure = StockLevelRevised.payload.parse(r.envelope.payload);
    return [r.envelope.type, figure.previousStock, figure.stock];
  });
}
