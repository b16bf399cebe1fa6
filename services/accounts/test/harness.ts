import type pg from 'pg';
import type { EventBus } from '@pf/platform/bus/bus';
import type { Identity, JwtSignOptions } from '@pf/platform/identity';
import type { ServiceInstance } from '@pf/platform/service/service';
import { graphqlClient, type GraphQLClient } from '@pf/platform/testing/graphql-client';
import type { TestDatabase } from '@pf/platform/testing/infra';
import { serveOnTestDatabase } from '@pf/platform/testing/served-service';
import { accountsService } from '../src';

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

/** The accounts service on a fresh, migrated database, served over real HTTP. */
export interface AccountsHarness extends GraphQLClient {
  db: TestDatabase;
  /** For looking at rows directly (outbox, hashes). */
  pool: pg.Pool;
  instance: ServiceInstance;
  url: string;
  close(): Promise<void>;
}

export async function startAccounts(opts: { bus?: EventBus; startBackgroundWork?: boolean } = {}): Promise<AccountsHarness> {
  const served = await serveOnTestDatabase(accountsService, { ...opts, jwt: jwtOptions, env: { ACCOUNTS_DB_POOL_MAX: '6' } });
  const { db, pool, instance, graphqlUrl: url } = served;
  return { db, pool, instance, url, ...graphqlClient(url, jwtOptions), close: () => served.close() };
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
