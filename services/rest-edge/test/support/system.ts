import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import pg from 'pg';
import pino from 'pino';
import { Agent, request } from 'undici';
import type { EventBus } from '@pf/platform/bus/bus';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import type { Logger } from '@pf/platform/logging';
import type { ServiceDefinition, ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, deleteTestTopics, testInfra, uniqueSuffix, type TestDatabase } from '@pf/platform/testing/infra';
// The system under test, started in-process from source like production would start it.
import { accountsService } from '../../../accounts/src';
import { catalogService } from '../../../catalog/src';
import { ordersService } from '../../../orders/src';
import { stockService } from '../../../stock/src';
import { webhooksService } from '../../../webhooks/src';
import { createGateway } from '../../../../gateway/src/gateway';
import { DEFAULT_SUPERGRAPH_PATH } from '../../../../gateway/src/subgraphs';
import { composeSupergraph } from './supergraph';
import { loadRestEdgeConfig } from '../../src/config';
import { loadContract } from '../../src/contract/openapi';
import { createRestEdge, type RestEdge } from '../../src/edge';
import { RedisRateLimiter } from '../../src/rate-limit/redis';
import { ContractChecker, type ObservedResponse } from './contract';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'rest-edge-test-secret-rest-edge-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const operator: Identity = { kind: 'service', service: 'ops' };
export const backOffice = (teamCode: string): Identity => ({ kind: 'backoffice', teamCode, userId: `user@${teamCode}` });

/** Log lines of one component, kept for assertions (and printed with TEST_LOG_LEVEL). */
export class CapturedLogs {
  readonly lines: Record<string, unknown>[] = [];
  readonly logger: Logger;

  constructor(service: string) {
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
        if (process.env.TEST_LOG_LEVEL) process.stdout.write(chunk);
        done();
      },
    });
    this.logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'info', base: { service } }, sink);
  }
}

export interface EdgeResponse extends ObservedResponse {
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface CallOptions {
  /** The API token, sent as `Authorization: Bearer <token>`; omitted: no header. */
  token?: string;
  /** A whole Authorization header instead. */
  authorization?: string;
  body?: unknown;
  /** A raw body (sent as is). */
  rawBody?: string | Buffer;
  /** Of a body: application/json unless given; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** The address the request is sent from (any of 127.0.0.0/8 on Linux). */
  from?: string;
}

/** One edge instance on an ephemeral port. */
export interface RunningEdge {
  edge: RestEdge;
  url: string;
  logs: CapturedLogs;
  call(method: string, path: string, opts?: CallOptions): Promise<EdgeResponse>;
  close(): Promise<void>;
}

export interface System {
  db: TestDatabase;
  bus: EventBus;
  accountsUrl: string;
  gatewayUrl: string;
  /** The catalog and stock subgraphs (started with `{ catalog: true }`). */
  catalogUrl?: string;
  stockUrl?: string;
  contract: ContractChecker;
  /** A GraphQL call through the gateway (back-office and operator identities). */
  graph<D = any>(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  sql<R extends pg.QueryResultRow = any>(text: string, params?: unknown[]): Promise<R[]>;
  /** Starts an edge over this system; each gets its own Redis key prefix unless one is given. */
  startEdge(env?: Record<string, string>): Promise<RunningEdge>;
  close(): Promise<void>;
}

const agents = new Map<string, Agent>();
function agentFrom(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) agents.set(address, (agent = new Agent({ localAddress: address })));
  return agent;
}

export interface SystemOptions {
  /**
   * The real Kafka broker (default), as deployed: every consumer of the system reads its events
   * from it. `false`: the in-memory bus of the embedded wiring.
   */
  kafka?: boolean;
  /**
   * Also run the webhooks subgraph (registration, secrets, resend; its read models of teams,
   * channels and orders fed by the other services' events), after the services it listens to.
   */
  webhooks?: boolean;
  /**
   * Also run the catalog and stock subgraphs (products, shipping methods, stock levels; stock
   * fed by catalog events over the bus), with the gateway over a fresh composition of the
   * subgraphs' SDL files (the committed supergraph is checked against one by scripts/test.sh).
   */
  catalog?: boolean;
  /**
   * Also run the orders subgraph (with catalog and stock, which it needs: its read models are fed
   * by their events, and it holds stock on the stock subgraph directly).
   */
  orders?: boolean;
  /**
   * Environment of the orders service beyond the defaults (e.g. ORDER_COUNTDOWN_SECONDS); a
   * function gets the URLs of the subgraphs started before it (to put a proxy in front of one).
   */
  ordersEnv?: Record<string, string> | ((urls: Record<string, string>) => Promise<Record<string, string>> | Record<string, string>);
}

/**
 * The real system the edge sits in front of: a migrated database, the accounts subgraph (and,
 * when asked, catalog and stock), each with its outbox relay publishing to the bus, and the
 * gateway over the supergraph, each on an ephemeral port.
 */
export async function startSystem(opts: SystemOptions = {}): Promise<System> {
  const logs = new CapturedLogs('system');
  const services: ServiceDefinition[] = opts.orders
    ? [accountsService, catalogService, stockService, ordersService]
    : opts.catalog
      ? [accountsService, catalogService, stockService]
      : [accountsService];
  if (opts.webhooks) services.push(webhooksService);
  const db = await createTestDatabase(services.map((s) => ({ schema: s.schema!, migrationsDir: s.migrationsDir! })));
  const topicPrefix = `pf-edge-test-${uniqueSuffix()}.`;
  const bus: EventBus = (opts.kafka ?? true)
    ? new KafkaEventBus({
        brokers: testInfra.kafkaBrokers,
        clientId: 'rest-edge-test',
        topicPrefix,
        logger: logs.logger,
        topicDefaults: { numPartitions: 1, replicationFactor: 1 },
      })
    : new InMemoryEventBus(logs.logger, 50);
  const servers: http.Server[] = [];
  const stoppers: (() => Promise<void>)[] = [];

  async function serve(app: express.Express): Promise<string> {
    const server = http.createServer(app);
    servers.push(server);
    const port = await listen(server, 0, '127.0.0.1');
    return `http://127.0.0.1:${port}`;
  }

  /** What startSystem made so far, undone when a later step fails (a Kafka client left open would keep jest from exiting). */
  const undoStart = async () => {
    await Promise.all(servers.map((s) => closeServer(s).catch(() => undefined)));
    for (const stop of [...stoppers].reverse()) await stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    if (bus instanceof KafkaEventBus) await deleteTestTopics(topicPrefix).catch(() => undefined);
    await db.drop().catch(() => undefined);
  };
  const subgraphUrls: Record<string, string> = {};
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  let gatewayUrl: string;
  try {
    for (const def of services) {
      const ordersEnv = def === ordersService ? (typeof opts.ordersEnv === 'function' ? await opts.ordersEnv({ ...subgraphUrls }) : opts.ordersEnv) : undefined;
      const instance: ServiceInstance = await def.create({
        databaseUrl: db.url,
        bus,
        jwt: jwtOptions,
        logger: logs.logger.child({ service: def.name }),
        env: {
          NODE_ENV: 'test',
          ACCOUNTS_DB_POOL_MAX: '4',
          CATALOG_DB_POOL_MAX: '4',
          STOCK_DB_POOL_MAX: '4',
          WEBHOOKS_DB_POOL_MAX: '2',
          WEBHOOKS_QUEUE_POOL_MAX: '2',
          // The orders service holds stock on the stock subgraph started before it.
          ...(def === ordersService ? { ORDERS_DB_POOL_MAX: '6', ORDERS_PRISMA_POOL_MAX: '2', STOCK_URL: subgraphUrls.stock!, ...ordersEnv } : {}),
          // A resend asks the orders subgraph when it runs; otherwise nothing answers there (port 9) and the read model serves.
          ...(def === webhooksService ? { ORDERS_URL: subgraphUrls.orders ?? 'http://127.0.0.1:9/graphql' } : {}),
        },
      });
      stoppers.push(() => instance.stop());
      await instance.start();
      subgraphUrls[def.name] = `${await serve(instance.app)}/graphql`;
    }
    gateway = await createGateway({
      supergraphSdl: opts.catalog || opts.orders || opts.webhooks ? composeSupergraph() : await readFile(DEFAULT_SUPERGRAPH_PATH, 'utf8'),
      subgraphUrls,
      jwt: jwtOptions,
      logger: logs.logger.child({ service: 'gateway' }),
    });
    stoppers.push(() => gateway.stop());
    gatewayUrl = `${await serve(gateway.app)}/graphql`;
  } catch (err) {
    await undoStart();
    throw err;
  }
  const accountsUrl = subgraphUrls.accounts!;

  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const edges = new Set<RunningEdge>();

  async function startEdge(env: Record<string, string> = {}): Promise<RunningEdge> {
    const edgeLogs = new CapturedLogs('rest-edge');
    const config = loadRestEdgeConfig({
      NODE_ENV: 'test',
      GATEWAY_URL: gatewayUrl,
      ACCOUNTS_URL: accountsUrl,
      ...(subgraphUrls.stock ? { STOCK_URL: subgraphUrls.stock } : {}),
      // As deployed: the order endpoints straight to the orders subgraph (ORDERS_URL: '' for the gateway).
      ...(subgraphUrls.orders ? { ORDERS_URL: subgraphUrls.orders } : {}),
      REDIS_URL: testInfra.redisUrl,
      REDIS_KEY_PREFIX: `pf-edge-test:${uniqueSuffix()}:`,
      JWT_SIGNING_KEY: jwtOptions.key,
      JWT_ALGORITHM: jwtOptions.algorithm,
      JWT_ISSUER: jwtOptions.issuer,
      JWT_AUDIENCE: jwtOptions.audience,
      UPSTREAM_CONNECTIONS: '8',
      ...env,
    });
    const edge = await createRestEdge({ config, logger: edgeLogs.logger, bus });
    await edge.start();
    const server = http.createServer(edge.app);
    const port = await listen(server, 0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const running: RunningEdge = {
      edge,
      url,
      logs: edgeLogs,
      async call(method, path, o = {}) {
        const headers: Record<string, string> = { ...o.headers };
        if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
        if (o.authorization !== undefined) headers.authorization = o.authorization;
        let body: string | Buffer | undefined = o.rawBody;
        if (o.body !== undefined) body = JSON.stringify(o.body);
        if (body !== undefined && o.contentType !== null) headers['content-type'] = o.contentType ?? 'application/json';
        const res = await request(url + path, {
          method: method as 'GET',
          headers,
          ...(body !== undefined ? { body } : {}),
          dispatcher: agentFrom(o.from ?? '127.0.0.1'),
        });
        const text = await res.body.text();
        const contentType = res.headers['content-type'] as string | undefined;
        let parsed: unknown = text;
        if (contentType?.includes('json') && text) parsed = JSON.parse(text);
        return { status: res.statusCode, headers: res.headers, body: parsed, contentType };
      },
      async close() {
        edges.delete(running);
        await closeServer(server);
        if (edge.rateLimiter instanceof RedisRateLimiter) await edge.rateLimiter.deleteAllKeys();
        await edge.stop();
      },
    };
    edges.add(running);
    return running;
  }

  return {
    db,
    bus,
    accountsUrl,
    gatewayUrl,
    ...(subgraphUrls.catalog ? { catalogUrl: subgraphUrls.catalog, stockUrl: subgraphUrls.stock! } : {}),
    contract: new ContractChecker(loadContract().document),
    async graph(identity, query, variables) {
      const res = await request(gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${signIdentity(identity, jwtOptions)}` },
        body: JSON.stringify({ query, variables }),
      });
      const json = (await res.body.json()) as { data?: any; errors?: unknown[] };
      if (json.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(json.errors)}`);
      return json.data;
    },
    async sql(text, params) {
      return (await pool.query(text, params as unknown[])).rows;
    },
    startEdge,
    async close() {
      for (const e of [...edges]) await e.close();
      await Promise.all(servers.map((s) => closeServer(s)));
      for (const stop of stoppers.reverse()) await stop();
      await bus.close();
      // The broker keeps a suite's topics otherwise, run after run.
      if (bus instanceof KafkaEventBus) await deleteTestTopics(topicPrefix).catch(() => undefined);
      await pool.end();
      await db.drop();
    },
  };
}

/** Closes the per-address HTTP agents of the helpers (afterAll of the last suite using them). */
export async function closeAgents(): Promise<void> {
  await Promise.all([...agents.values()].map((a) => a.close()));
  agents.clear();
}

export const CREATE_TEAM = `mutation ($input: CreateTeamInput!) { createTeam(input: $input) { code } }`;
export const CREATE_CHANNEL = `mutation ($input: CreateChannelInput!) { createChannel(input: $input) { id } }`;
export const UPDATE_CHANNEL = `mutation ($id: ID!, $input: UpdateChannelInput!) { updateChannel(id: $id, input: $input) { id active } }`;
export const UPDATE_TEAM = `mutation ($code: ID!, $input: UpdateTeamInput!) { updateTeam(code: $code, input: $input) { code active } }`;
export const ISSUE_TOKEN = `mutation ($channelId: ID!) { issueApiToken(channelId: $channelId) { token apiToken { id prefix channelId createdAt } } }`;
export const REVOKE_TOKEN = `mutation ($channelId: ID!) { revokeApiToken(channelId: $channelId) }`;

export interface IssuedToken {
  token: string;
  id: string;
  prefix: string;
  createdAt: string;
}

/** A team (created by an operator, with its Standard channel) and integration channels with tokens. */
export async function seedTeam(sys: System, team: string, channels: string[]): Promise<Record<string, IssuedToken>> {
  await sys.graph(operator, CREATE_TEAM, { input: { code: team, name: `Team ${team}` } });
  const tokens: Record<string, IssuedToken> = {};
  for (const code of channels) {
    const { createChannel } = await sys.graph(backOffice(team), CREATE_CHANNEL, { input: { code, name: `Channel ${code}` } });
    tokens[code] = await issueToken(sys, createChannel.id);
  }
  return tokens;
}

export async function issueToken(sys: System, channelId: string): Promise<IssuedToken> {
  const { issueApiToken } = await sys.graph(backOffice(channelId.split('-')[0]!), ISSUE_TOKEN, { channelId });
  return { token: issueApiToken.token, ...issueApiToken.apiToken };
}

/** Waits for the start of a rate-limit window with at least `needMs` left in it. */
export async function atWindowStart(windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 20));
}
