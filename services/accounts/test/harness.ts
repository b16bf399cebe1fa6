import http from 'node:http';
import express from 'express';
import pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { listen, closeServer } from '@pf/platform/http/lifecycle';
import { signIdentity, type Identity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceInstance } from '@pf/platform/service/service';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { accountsService, ACCOUNTS_MIGRATIONS_DIR } from '../src';

export const jwtOptions: JwtSignOptions = {
  algorithm: 'HS256',
  key: 'accounts-test-secret-accounts-test-secret',
  issuer: 'pf-test',
  audience: 'pf-graph',
  expiresInSeconds: 300,
};

export const operator: Identity = { kind: 'service', service: 'ops' };
export const edge: Identity = { kind: 'service', service: 'rest-edge' };
export const backOffice = (teamCode: string): Identity => ({ kind: 'backoffice', teamCode, userId: `user@${teamCode}` });
export const channelIdentity = (teamCode: string, channelId: string): Identity => ({ kind: 'channel', teamCode, channelId });

export interface GraphQLResponse<D = Record<string, any>> {
  data?: D | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[];
}

/** The accounts service on a fresh, migrated database, served over real HTTP. */
export interface AccountsHarness {
  db: TestDatabase;
  /** For looking at rows directly (outbox, hashes). */
  pool: pg.Pool;
  instance: ServiceInstance;
  url: string;
  gql<D = Record<string, any>>(identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>>;
  /** Like gql, but fails the test on any error and returns data. */
  ok<D = Record<string, any>>(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  /** The single error's problem transport (fails if the call did not fail with a Problem). */
  problem(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<{ problemType: string; detail: string; violations?: { property: string }[] }>;
  close(): Promise<void>;
}

export async function startAccounts(opts: { bus?: EventBus; startBackgroundWork?: boolean } = {}): Promise<AccountsHarness> {
  const db = await createTestDatabase([{ schema: 'accounts', migrationsDir: ACCOUNTS_MIGRATIONS_DIR }]);
  const logger = createLogger('accounts-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const bus = opts.bus ?? new InMemoryEventBus(logger);
  const instance = await accountsService.create({
    databaseUrl: db.url,
    bus,
    jwt: jwtOptions,
    logger,
    env: { NODE_ENV: 'test', ACCOUNTS_DB_POOL_MAX: '6' },
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

export const CREATE_TEAM = /* GraphQL */ `
  mutation ($input: CreateTeamInput!) {
    createTeam(input: $input) { code name active createdAt updatedAt channels { id code name standard active apiToken { id } } }
  }`;

export const CREATE_CHANNEL = /* GraphQL */ `
  mutation ($input: CreateChannelInput!) {
    createChannel(input: $input) { id code teamCode name active standard apiToken { id } createdAt updatedAt }
  }`;

export const UPDATE_CHANNEL = /* GraphQL */ `
  mutation ($id: ID!, $input: UpdateChannelInput!) { updateChannel(id: $id, input: $input) { id name active } }`;

export const UPDATE_TEAM = /* GraphQL */ `
  mutation ($code: ID!, $input: UpdateTeamInput!) { updateTeam(code: $code, input: $input) { code name active } }`;

export const ISSUE_TOKEN = /* GraphQL */ `
  mutation ($channelId: ID!) {
    issueApiToken(channelId: $channelId) { token revokedTokenId apiToken { id prefix channelId createdAt } }
  }`;

export const REVOKE_TOKEN = /* GraphQL */ `
  mutation ($channelId: ID!) { revokeApiToken(channelId: $channelId) }`;

export const TOKEN_CHECK = /* GraphQL */ `
  query ($channelId: ID!, $tokenSha256: String!) {
    channelTokenCheck(channelId: $channelId, tokenSha256: $tokenSha256) {
      channelExists teamActive
      channel { id teamCode active standard }
      token { id channelId teamCode createdAt channelActive channelStandard }
    }
  }`;

/** Creates a team (operator) and a channel in it (the team's back-office); returns the channel id. */
export async function teamWithChannel(h: AccountsHarness, team: string, channelCode = 'shop'): Promise<string> {
  await h.ok(operator, CREATE_TEAM, { input: { code: team, name: `Team ${team}` } });
  const { createChannel } = await h.ok(backOffice(team), CREATE_CHANNEL, { input: { code: channelCode, name: 'Shop' } });
  return createChannel.id;
}

export async function issueToken(h: AccountsHarness, channelId: string, teamCode = channelId.split('-')[0]!): Promise<{ token: string; id: string }> {
  const { issueApiToken } = await h.ok(backOffice(teamCode), ISSUE_TOKEN, { channelId });
  return { token: issueApiToken.token, id: issueApiToken.apiToken.id };
}
