import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ChannelCreated, ChannelUpdated, TeamCreated, TeamUpdated } from '@pf/platform/events/accounts';
import type { EventDefinition } from '@pf/platform/events/envelope';
import type { OrderFacts } from '@pf/platform/events/orders';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import { outgoing } from '@pf/platform/outbox/outbox';
import { createTestDatabase, deleteTestTopics, eventually, testInfra, uniqueSuffix, type TestDatabase } from '@pf/platform/testing/infra';
import { createWebhooksService, WEBHOOKS_MIGRATIONS_DIR, type WebhooksInstance, type WebhooksOverrides } from '../../src';
import type { HostResolver, ResolvedAddress } from '../../src/domain/url-policy';

export const jwt: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'webhooks-test-secret-webhooks-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

/**
 * DNS for tests: names answer from a table that tests change at will (between attempts, or on
 * every lookup with a function). Unknown names do not resolve.
 */
export class TableResolver implements HostResolver {
  readonly answers = new Map<string, ResolvedAddress[] | ((n: number) => ResolvedAddress[])>();
  lookups = 0;
  private readonly perName = new Map<string, number>();

  set(name: string, answer: ResolvedAddress[] | ((n: number) => ResolvedAddress[])): void {
    this.answers.set(name, answer);
    this.perName.set(name, 0);
  }

  async resolve(name: string): Promise<ResolvedAddress[]> {
    this.lookups += 1;
    const n = (this.perName.get(name) ?? 0) + 1;
    this.perName.set(name, n);
    const answer = this.answers.get(name);
    return typeof answer === 'function' ? answer(n) : (answer ?? []);
  }
}

export const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Default: a bus of its own on the real Kafka broker (own topic prefix), as deployed. */
  bus?: EventBus;
  overrides?: Omit<WebhooksOverrides, 'resolver'>;
  /** Reuse a database (a restart); default: a fresh one. */
  db?: TestDatabase;
  resolver?: TableResolver;
}

/** The webhooks service as production wires it (health routes aside), on its own database. */
export class WebhooksHarness {
  private server?: http.Server;
  base = '';
  readonly sql: pg.Pool;

  private constructor(
    readonly db: TestDatabase,
    readonly bus: EventBus,
    readonly instance: WebhooksInstance,
    readonly dns: TableResolver,
    /** The topic prefix of the bus the harness made (closed and deleted on stop); undefined when given one. */
    private ownTopics: string | undefined,
  ) {
    this.sql = new pg.Pool({ connectionString: db.url, max: 2, options: '-c search_path=webhooks' });
  }

  static async start(opts: HarnessOptions = {}): Promise<WebhooksHarness> {
    const db = opts.db ?? (await createTestDatabase([{ schema: 'webhooks', migrationsDir: WEBHOOKS_MIGRATIONS_DIR }]));
    const logger = createLogger('webhooks-test', process.env.TEST_LOG_LEVEL ?? 'silent');
    const ownTopics = opts.bus ? undefined : `pf-test-webhooks-${uniqueSuffix()}.`;
    const bus =
      opts.bus ??
      new KafkaEventBus({
        brokers: testInfra.kafkaBrokers,
        clientId: 'webhooks-test',
        topicPrefix: ownTopics!,
        logger,
        topicDefaults: { numPartitions: 1, replicationFactor: 1 },
        handlerRetry: { initialDelayMs: 50, maxDelayMs: 1_000 },
      });
    const dns = opts.resolver ?? new TableResolver();
    const instance = await createWebhooksService(
      { databaseUrl: db.url, bus, jwt, logger, env: { NODE_ENV: 'test', WEBHOOK_POLL_INTERVAL_MS: '200', ...opts.env } },
      // No orders service here: a resend reads the read model, which the tests feed with order events.
      { currentOrders: (readModel) => readModel, ...opts.overrides, resolver: dns },
    );
    await instance.start();
    const harness = new WebhooksHarness(db, bus, instance, dns, ownTopics);
    const root = express();
    root.use(instance.app);
    harness.server = http.createServer(root);
    harness.base = `http://127.0.0.1:${await listen(harness.server, 0, '127.0.0.1')}`;
    return harness;
  }

  /** Stops this instance (graceful: attempts in flight finish) and starts another on the same database and bus. */
  async restart(opts: Omit<HarnessOptions, 'db' | 'bus' | 'resolver'> = {}): Promise<WebhooksHarness> {
    await this.stopService();
    const next = await WebhooksHarness.start({ ...opts, db: this.db, bus: this.bus, resolver: this.dns });
    // The bus goes with the instance that runs on it: its stop closes the bus this one made.
    next.ownTopics = this.ownTopics;
    this.ownTopics = undefined;
    return next;
  }

  async stopService(): Promise<void> {
    try {
      if (this.server) await closeServer(this.server);
      this.server = undefined;
      await this.instance.stop();
    } finally {
      // Closed whatever happened above: the database is dropped next, and an idle connection
      // cut by the drop would be an unhandled error that fails the whole suite.
      await this.sql.end().catch(() => undefined);
    }
  }

  /** Stops a second instance on another's database: the service and its own bus (topics deleted), not the database. */
  async stopReplica(): Promise<void> {
    await this.stopService();
    await this.closeOwnBus();
  }

  /** Stops everything and drops the database. */
  async stop(): Promise<void> {
    await this.stopService().catch(() => undefined);
    await this.closeOwnBus();
    await this.db.drop();
  }
  /** Closes the bus this harness made, and deletes its topics (a bus it was given is the giver's). */
  private async closeOwnBus(): Promise<void> {
    if (this.ownTopics === undefined) return;
    const topics = this.ownTopics;
    this.ownTopics = undefined;
    await this.bus.close();
    await deleteTestTopics(topics).catch(() => undefined);
  }


  async graphql<T = Record<string, unknown>>(identity: Identity, query: string, variables: Record<string, unknown> = {}) {
    const res = await fetch(`${this.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signIdentity(identity, jwt)}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: T; errors?: { message: string; extensions?: { code?: string; problem?: { problemType: string; violations?: { property: string }[] } } }[] };
  }

  async publish<P>(definition: EventDefinition<string, P>, aggregateId: string, payload: P): Promise<string> {
    const event = definition.create(aggregateId, payload);
    await this.bus.publish([outgoing(definition, event)]);
    return event.id;
  }

  /** A team and a channel of it, as accounts announces them; waits until the read models have them. */
  async seedChannel(teamCode: string, channelCode: string, opts: { active?: boolean; standard?: boolean; teamActive?: boolean } = {}): Promise<string> {
    const channelId = `${teamCode}-${channelCode}`;
    await this.publish(TeamCreated, teamCode, { teamCode, name: teamCode, active: opts.teamActive ?? true });
    await this.publish(ChannelCreated, channelId, { channelId, teamCode, channelCode, name: channelCode, active: opts.active ?? true, standard: opts.standard ?? false });
    await eventually(async () => ((await this.sql.query('SELECT 1 FROM channel WHERE channel_id = $1', [channelId])).rowCount ? true : undefined));
    await eventually(async () => ((await this.sql.query('SELECT 1 FROM team WHERE team_code = $1', [teamCode])).rowCount ? true : undefined));
    return channelId;
  }

  async setChannelActive(teamCode: string, channelCode: string, active: boolean): Promise<void> {
    const channelId = `${teamCode}-${channelCode}`;
    await this.publish(ChannelUpdated, channelId, { channelId, teamCode, channelCode, name: channelCode, active, standard: false });
    await eventually(async () => ((await this.sql.query('SELECT 1 FROM channel WHERE channel_id = $1 AND active = $2', [channelId, active])).rowCount ? true : undefined));
  }

  async setTeamActive(teamCode: string, active: boolean): Promise<void> {
    await this.publish(TeamUpdated, teamCode, { teamCode, name: teamCode, active });
    await eventually(async () => ((await this.sql.query('SELECT 1 FROM team WHERE team_code = $1 AND active = $2', [teamCode, active])).rowCount ? true : undefined));
  }

  /** Registers a URL as the channel's integration would (POST /webhooks); returns the secret. */
  async register(channelId: string, url: string): Promise<string> {
    const teamCode = channelId.split('-')[0]!;
    const res = await this.graphql<{ registerWebhook: { secret: string } }>(
      { kind: 'channel', teamCode, channelId },
      'mutation($url: String!) { registerWebhook(url: $url) { secret } }',
      { url },
    );
    if (!res.data) throw new Error(`registerWebhook failed: ${JSON.stringify(res.errors)}`);
    return res.data.registerWebhook.secret;
  }

  async rotate(channelId: string): Promise<string> {
    const teamCode = channelId.split('-')[0]!;
    const res = await this.graphql<{ rotateWebhookSecret: { secret: string } }>({ kind: 'channel', teamCode, channelId }, 'mutation { rotateWebhookSecret { secret } }');
    if (!res.data) throw new Error(`rotateWebhookSecret failed: ${JSON.stringify(res.errors)}`);
    return res.data.rotateWebhookSecret.secret;
  }

  /** Deliveries by status. */
  async deliveryCounts(): Promise<Record<string, number>> {
    const { rows } = await this.sql.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM delivery GROUP BY status');
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}

/** The facts an orders event carries, for an order created through the API on `channelId`. */
export function orderFacts(channelId: string, overrides: Partial<OrderFacts> = {}): OrderFacts {
  const [teamCode, ...rest] = channelId.split('-');
  const now = new Date().toISOString();
  return {
    orderUuid: randomUUID(),
    teamCode: teamCode!,
    channelId,
    channelCode: rest.join('-'),
    origin: 'api',
    orderNumber: `SO/${Math.floor(Math.random() * 1e6)}`,
    status: 'draft',
    fulfillableStatus: 'fulfillable',
    createdAt: now,
    updatedAt: now,
    confirmedAt: null,
    ...overrides,
  };
}
