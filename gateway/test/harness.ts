import { readFile } from 'node:fs/promises';
import http from 'node:http';
import express from 'express';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceDefinition, ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { accountsService } from '../../services/accounts/src';
import { catalogService } from '../../services/catalog/src';
import { ordersService } from '../../services/orders/src';
import { stockService } from '../../services/stock/src';
import { webhooksService } from '../../services/webhooks/src';
import { createGateway, type Gateway } from '../src/gateway';
import { DEFAULT_SUPERGRAPH_PATH } from '../src/subgraphs';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'gateway-test-secret-gateway-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const operator: Identity = { kind: 'service', service: 'ops' };
export const backOffice = (teamCode: string): Identity => ({ kind: 'backoffice', teamCode, userId: `user@${teamCode}` });
export const channelIdentity = (teamCode: string, channelId: string): Identity => ({ kind: 'channel', teamCode, channelId });

export const token = (identity: Identity, opts: Partial<JwtSignOptions> = {}) => signIdentity(identity, { ...jwtOptions, ...opts });

export interface GraphQLResponse<D = Record<string, any>> {
  data?: D | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
}

export interface HttpResult<D = Record<string, any>> {
  status: number;
  headers: Headers;
  body: GraphQLResponse<D>;
}

/** POSTs a GraphQL operation; `auth` is the whole Authorization header, or omitted. */
export async function post<D = Record<string, any>>(
  url: string,
  query: string,
  opts: { auth?: string; variables?: Record<string, unknown>; requestId?: string } = {},
): Promise<HttpResult<D>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.auth) headers.authorization = opts.auth;
  if (opts.requestId) headers['x-request-id'] = opts.requestId;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables: opts.variables }) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as GraphQLResponse<D> };
}

/** What one subgraph was sent, as seen on its HTTP server (in front of the real subgraph app). */
export interface ReceivedCall {
  authorization: string | undefined;
  requestId: string | undefined;
}

export interface RunningSubgraph {
  name: string;
  url: string;
  instance: ServiceInstance;
  received: ReceivedCall[];
}

/** Every subgraph on its own ephemeral port over one migrated test database, and the gateway in front. */
export interface System {
  db: TestDatabase;
  subgraphs: Record<string, RunningSubgraph>;
  gatewayUrl: string;
  /** A further gateway over the same supergraph with other subgraph URLs (closed with the system). */
  startGateway(subgraphUrls: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

const definitions: ServiceDefinition[] = [accountsService, catalogService, stockService, ordersService, webhooksService];

export async function startSystem(): Promise<System> {
  const logger = createLogger('gateway-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const db = await createTestDatabase(definitions.map((d) => ({ schema: d.schema!, migrationsDir: d.migrationsDir! })));
  const bus = new InMemoryEventBus(logger);
  const servers: http.Server[] = [];
  const stoppers: (() => Promise<void>)[] = [];

  async function serve(app: express.Express): Promise<string> {
    const server = http.createServer(app);
    servers.push(server);
    const port = await listen(server, 0, '127.0.0.1');
    return `http://127.0.0.1:${port}`;
  }

  const subgraphs: Record<string, RunningSubgraph> = {};
  for (const def of definitions) {
    const instance = await def.create({
      databaseUrl: db.url,
      bus,
      jwt: jwtOptions,
      logger: logger.child({ service: def.name }),
      env: { NODE_ENV: 'test', ACCOUNTS_DB_POOL_MAX: '4' },
    });
    stoppers.push(() => instance.stop());
    const received: ReceivedCall[] = [];
    const app = express();
    app.use((req, _res, next) => {
      received.push({ authorization: req.headers.authorization, requestId: req.headers['x-request-id'] as string | undefined });
      next();
    });
    app.use(instance.app);
    subgraphs[def.name] = { name: def.name, url: `${await serve(app)}/graphql`, instance, received };
  }

  const supergraphSdl = await readFile(DEFAULT_SUPERGRAPH_PATH, 'utf8');
  async function startGateway(subgraphUrls: Record<string, string>): Promise<string> {
    const gateway: Gateway = await createGateway({ supergraphSdl, subgraphUrls, jwt: jwtOptions, logger: logger.child({ service: 'gateway' }) });
    stoppers.push(() => gateway.stop());
    return `${await serve(gateway.app)}/graphql`;
  }
  const gatewayUrl = await startGateway(Object.fromEntries(Object.values(subgraphs).map((s) => [s.name, s.url])));

  return {
    db,
    subgraphs,
    gatewayUrl,
    startGateway,
    async close() {
      await Promise.all(servers.map((s) => closeServer(s)));
      for (const stop of stoppers.reverse()) await stop();
      await bus.close();
      await db.drop();
    },
  };
}
