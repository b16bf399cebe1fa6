import http from 'node:http';
import express from 'express';
import pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { catalogService, CATALOG_MIGRATIONS_DIR } from '../src';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'catalog-test-secret-catalog-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const service = (name = 'orders'): Identity => ({ kind: 'service', service: name });
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

/** The catalog service on a fresh, migrated database, served over real HTTP with real JWTs. */
export interface CatalogHarness {
  db: TestDatabase;
  /** For looking at rows directly (outbox, soft deletes). */
  pool: pg.Pool;
  instance: ServiceInstance;
  url: string;
  gql<D = Record<string, any>>(identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>>;
  /** Like gql, but fails the test on any error and returns data. */
  ok<D = Record<string, any>>(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  /** The single error's problem transport (fails if the call did not fail with one Problem). */
  problem(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<ProblemTransport>;
  /** Outbox rows written after `seq` (0: all), in commit order. */
  outboxAfter(seq?: number): Promise<OutboxRow[]>;
  lastSeq(): Promise<number>;
  close(): Promise<void>;
}

export async function startCatalog(opts: { bus?: EventBus; startBackgroundWork?: boolean } = {}): Promise<CatalogHarness> {
  const db = await createTestDatabase([{ schema: 'catalog', migrationsDir: CATALOG_MIGRATIONS_DIR }]);
  const logger = createLogger('catalog-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const bus = opts.bus ?? new InMemoryEventBus(logger);
  const instance = await catalogService.create({
    databaseUrl: db.url,
    bus,
    jwt: jwtOptions,
    logger,
    env: { NODE_ENV: 'test', CATALOG_DB_POOL_MAX: '6' },
  });
  if (opts.startBackgroundWork) await instance.start();
  const app = express();
  app.use(instance.app);
  const server = http.createServer(app);
  const port = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}/graphql`;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });

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
    async outboxAfter(seq = 0) {
      const { rows } = await pool.query<OutboxRow>(
        'SELECT seq::int AS seq, topic, event_key, envelope FROM catalog.outbox_event WHERE seq > $1 ORDER BY seq',
        [seq],
      );
      return rows;
    },
    async lastSeq() {
      const { rows } = await pool.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM catalog.outbox_event');
      return Number(rows[0]?.seq ?? 0);
    },
    async close() {
      await closeServer(server);
      await instance.stop();
      // The production runner closes the bus after the service; so does the harness.
      await bus.close();
      await pool.end();
      await db.drop();
    },
  };
}

export const PRODUCT_FIELDS = /* GraphQL */ `
  uuid sku name description activeState podEnabled podApproved version deleted deletedAt createdAt updatedAt
  dimensions { weight { measurement unit } length { measurement unit } width { measurement unit } depth { measurement unit } }
`;

export const CREATE_PRODUCT = /* GraphQL */ `
  mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${PRODUCT_FIELDS} } }`;

export const UPDATE_PRODUCT = /* GraphQL */ `
  mutation ($uuid: ID!, $input: UpdateProductInput!, $expectedVersion: Int) {
    updateProduct(uuid: $uuid, input: $input, expectedVersion: $expectedVersion) { ${PRODUCT_FIELDS} }
  }`;

export const DELETE_PRODUCT = /* GraphQL */ `
  mutation ($uuid: ID!, $expectedVersion: Int) { deleteProduct(uuid: $uuid, expectedVersion: $expectedVersion) { ${PRODUCT_FIELDS} } }`;

export const PRODUCT = /* GraphQL */ `
  query ($uuid: ID!, $includeDeleted: Boolean) { product(uuid: $uuid, includeDeleted: $includeDeleted) { ${PRODUCT_FIELDS} } }`;

export const PRODUCTS = /* GraphQL */ `
  query ($first: Int, $after: String, $filter: ProductFilter, $teamCode: ID) {
    products(first: $first, after: $after, filter: $filter, teamCode: $teamCode) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { uuid sku name activeState deleted } }
    }
  }`;

export const PRODUCT_PAGE = /* GraphQL */ `
  query ($page: Int, $perPage: Int, $activeState: String, $teamCode: ID) {
    productPage(page: $page, perPage: $perPage, activeState: $activeState, teamCode: $teamCode) {
      page perPage total lastPage from to
      items { uuid sku activeState podEnabled podApproved dimensions { weight { measurement unit } } }
    }
  }`;

export const VALIDATE_SKUS = /* GraphQL */ `
  query ($skus: [String!]!, $teamCode: ID) { validateSkus(skus: $skus, teamCode: $teamCode) { sku matched productUuid activeState } }`;

export const METHOD_FIELDS = /* GraphQL */ `
  teamCode code name carrier active countryCodes serviceLevel tracked minDeliveryDays maxDeliveryDays priority version createdAt updatedAt
`;

export const SHIPPING_METHODS = /* GraphQL */ `
  query ($includeInactive: Boolean, $countryCode: String, $teamCode: ID) {
    shippingMethods(includeInactive: $includeInactive, countryCode: $countryCode, teamCode: $teamCode) { ${METHOD_FIELDS} }
  }`;

export const SHIPPING_METHOD = /* GraphQL */ `
  query ($code: ID!, $teamCode: ID) { shippingMethod(code: $code, teamCode: $teamCode) { ${METHOD_FIELDS} } }`;

export const CREATE_SHIPPING_METHOD = /* GraphQL */ `
  mutation ($input: CreateShippingMethodInput!) { createShippingMethod(input: $input) { ${METHOD_FIELDS} } }`;

export const UPDATE_SHIPPING_METHOD = /* GraphQL */ `
  mutation ($code: ID!, $input: UpdateShippingMethodInput!) { updateShippingMethod(code: $code, input: $input) { ${METHOD_FIELDS} } }`;

export const DELETE_SHIPPING_METHOD = /* GraphQL */ `
  mutation ($code: ID!) { deleteShippingMethod(code: $code) { ${METHOD_FIELDS} } }`;

export const ENTITIES = /* GraphQL */ `
  query ($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Product { uuid sku name }
      ... on ShippingMethod { teamCode code name }
    }
  }`;

/** Creates a product as the team's back-office; returns it. */
export async function createProduct(h: CatalogHarness, teamCode: string, input: Record<string, unknown>): Promise<Record<string, any>> {
  const { createProduct } = await h.ok(backOffice(teamCode), CREATE_PRODUCT, { input });
  return createProduct;
}
