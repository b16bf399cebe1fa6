import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { SubgraphContext } from '@pf/platform/graphql/subgraph';
import { actorOf } from '@pf/platform/identity';
import type { ApiTokenInfo, Channel, ChannelTokenFacts, Team } from '../domain/model';
import type { AccountsUseCases, CreateChannelInput, CreateTeamInput, UpdateChannelInput, UpdateTeamInput } from '../use-cases';

/** Per-request context of the accounts subgraph. */
export interface AccountsContext extends SubgraphContext {
  accounts: AccountsUseCases;
}

const iso = (d: Date) => d.toISOString();

/**
 * Thin resolvers: each passes the caller's identity and its arguments to one use case, which
 * authorises and does the work. Timestamps leave as ISO 8601 strings.
 */
export const resolvers: GraphQLResolverMap<AccountsContext> = {
  Query: {
    team: (_: unknown, args: { code?: string | null }, ctx: AccountsContext) => ctx.accounts.getTeam(ctx.identity, args.code),
    channel: (_: unknown, args: { id: string }, ctx: AccountsContext) => ctx.accounts.getChannel(ctx.identity, args.id),
    channels: (_: unknown, args: { teamCode?: string | null }, ctx: AccountsContext) =>
      ctx.accounts.getChannels(ctx.identity, args.teamCode),
    channelTokenCheck: (_: unknown, args: { channelId: string; tokenSha256: string }, ctx: AccountsContext) =>
      ctx.accounts.checkChannelToken(ctx.identity, args.channelId, args.tokenSha256),
  },
  Mutation: {
    createTeam: (_: unknown, args: { input: CreateTeamInput }, ctx: AccountsContext) =>
      ctx.accounts.createTeam(ctx.identity, args.input),
    updateTeam: (_: unknown, args: { code: string; input: UpdateTeamInput }, ctx: AccountsContext) =>
      ctx.accounts.updateTeam(ctx.identity, args.code, args.input),
    createChannel: (_: unknown, args: { input: CreateChannelInput }, ctx: AccountsContext) =>
      ctx.accounts.createChannel(ctx.identity, args.input),
    updateChannel: (_: unknown, args: { id: string; input: UpdateChannelInput }, ctx: AccountsContext) =>
      ctx.accounts.updateChannel(ctx.identity, args.id, args.input),
    // Credentials changing hands are worth a line each (who, which channel; never the token).
    issueApiToken: async (_: unknown, args: { channelId: string }, ctx: AccountsContext) => {
      const issued = await ctx.accounts.issueApiToken(ctx.identity, args.channelId);
      ctx.logger.info(
        { channelId: args.channelId, tokenId: issued.apiToken.id, tokenPrefix: issued.apiToken.prefix, revokedTokenId: issued.revokedTokenId, actor: actorOf(ctx.identity) },
        'API token issued',
      );
      return issued;
    },
    revokeApiToken: async (_: unknown, args: { channelId: string }, ctx: AccountsContext) => {
      const revokedTokenId = await ctx.accounts.revokeApiToken(ctx.identity, args.channelId);
      if (revokedTokenId) ctx.logger.info({ channelId: args.channelId, tokenId: revokedTokenId, actor: actorOf(ctx.identity) }, 'API token revoked');
      return revokedTokenId !== null;
    },
  },
  Team: {
    // Other subgraphs reference teams by code; visibility is the same as for the team query.
    __resolveReference: (ref: { code: string }, ctx: AccountsContext) => ctx.accounts.getTeam(ctx.identity, ref.code),
    channels: (team: Team, _: unknown, ctx: AccountsContext) => ctx.accounts.getChannels(ctx.identity, team.code),
    createdAt: (team: Team) => iso(team.createdAt),
    updatedAt: (team: Team) => iso(team.updatedAt),
  },
  Channel: {
    __resolveReference: (ref: { id: string }, ctx: AccountsContext) => ctx.accounts.getChannel(ctx.identity, ref.id),
    createdAt: (channel: Channel) => iso(channel.createdAt),
    updatedAt: (channel: Channel) => iso(channel.updatedAt),
  },
  ApiToken: {
    createdAt: (token: ApiTokenInfo) => iso(token.createdAt),
  },
  TokenAuthFacts: {
    createdAt: (token: NonNullable<ChannelTokenFacts['token']>) => iso(token.createdAt),
  },
};
