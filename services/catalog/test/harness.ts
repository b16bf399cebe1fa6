import type pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import type { Identity, JwtSignOptions } from '@pf/platform/identity';
import type { ServiceInstance } from '@pf/platform/service/service';
import { graphqlClient, type GraphQLClient } from '@pf/platform/testing/graphql-client';
import type { TestDatabase } from '@pf/platform/testing/infra';
import { serveOnTestDatabase } from '@pf/platform/testing/served-service';
import { catalogService } from '../src';

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

export interface OutboxRow {
  seq: number;
  topic: string;
  event_key: string;
  envelope: EventEnvelope<any>;
}

/** The catalog service on a fresh, migrated database, served over real HTTP with real JWTs. */
export interface CatalogHarness extends GraphQLClient {
  db: TestDatabase;
  /** For looking at rows directly (outbox, soft deletes). */
  pool: pg.Pool;
  instance: ServiceInstance;
  url: string;
  /** Outbox rows written after `seq` (0: all), in commit order. */
  outboxAfter(seq?: number): Promise<OutboxRow[]>;
  lastSeq(): Promise<number>;
  close(): Promise<void>;
}

export async function startCatalog(opts: { bus?: EventBus; startBackgroundWork?: boolean } = {}): Promise<CatalogHarness> {
  const served = await serveOnTestDatabase(catalogService, { ...opts, jwt: jwtOptions, env: { CATALOG_DB_POOL_MAX: '6' } });
  const { db, pool, instance, graphqlUrl: url } = served;
  return {
    db,
    pool,
    instance,
    url,
    ...graphqlClient(url, jwtOptions),
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
    close: () => served.close(),
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
