import type { Identity } from '@pf/platform/identity';
import { checkChannelToken } from './check-channel-token';
import { createChannel, type CreateChannelInput } from './create-channel';
import { createTeam, type CreateTeamInput } from './create-team';
import type { AccountsDeps } from './deps';
import { issueApiToken } from './issue-api-token';
import { getChannel, getChannels, getTeam } from './read-accounts';
import { revokeApiToken } from './revoke-api-token';
import { updateChannel, type UpdateChannelInput } from './update-channel';
import { updateTeam, type UpdateTeamInput } from './update-team';

export type { AccountsDeps } from './deps';
export type { CreateChannelInput, CreateTeamInput, UpdateChannelInput, UpdateTeamInput };
export type { IssuedApiToken } from './issue-api-token';

/** The accounts use cases bound to their dependencies; what resolvers and the seeder call. */
export class AccountsUseCases {
  constructor(private readonly deps: AccountsDeps) {}

  createTeam(identity: Identity, input: CreateTeamInput) {
    return createTeam(this.deps, identity, input);
  }
  updateTeam(identity: Identity, code: string, input: UpdateTeamInput) {
    return updateTeam(this.deps, identity, code, input);
  }
  createChannel(identity: Identity, input: CreateChannelInput) {
    return createChannel(this.deps, identity, input);
  }
  updateChannel(identity: Identity, id: string, input: UpdateChannelInput) {
    return updateChannel(this.deps, identity, id, input);
  }
  issueApiToken(identity: Identity, channelId: string) {
    return issueApiToken(this.deps, identity, channelId);
  }
  revokeApiToken(identity: Identity, channelId: string) {
    return revokeApiToken(this.deps, identity, channelId);
  }
  getTeam(identity: Identity, code?: string | null) {
    return getTeam(this.deps, identity, code);
  }
  getChannel(identity: Identity, id: string) {
    return getChannel(this.deps, identity, id);
  }
  getChannels(identity: Identity, teamCode?: string | null) {
    return getChannels(this.deps, identity, teamCode);
  }
  checkChannelToken(identity: Identity, channelId: string, tokenSha256: string) {
    return checkChannelToken(this.deps, identity, channelId, tokenSha256);
  }
}
