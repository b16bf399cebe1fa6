/** A team as the use cases see it. */
export interface Team {
  code: string;
  name: string;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** An API token's public facts (never the token, never its hash). */
export interface ApiTokenInfo {
  id: string;
  channelId: string;
  prefix: string;
  createdAt: Date;
}

/** A channel with its live (unrevoked) token, if it has one. */
export interface Channel {
  id: string;
  teamCode: string;
  code: string;
  name: string;
  active: boolean;
  standard: boolean;
  createdAt: Date;
  updatedAt: Date;
  apiToken: ApiTokenInfo | null;
}

/**
 * What the REST edge needs to authenticate a request on a path channel, in the order of the
 * contract's section 5 point 7 (see ChannelTokenCheck in accounts.graphql).
 */
export interface ChannelTokenFacts {
  channelExists: boolean;
  channel: { id: string; teamCode: string; active: boolean; standard: boolean } | null;
  /** The live token with the given hash whose channel is in the path channel's team, else null. */
  token: {
    id: string;
    channelId: string;
    teamCode: string;
    createdAt: Date;
    channelActive: boolean;
    channelStandard: boolean;
  } | null;
  teamActive: boolean;
}

/** Event payloads carry the full state after a change. */
export function teamState(team: Pick<Team, 'code' | 'name' | 'active'>) {
  return { teamCode: team.code, name: team.name, active: team.active };
}

export function channelState(channel: Pick<Channel, 'id' | 'teamCode' | 'code' | 'name' | 'active' | 'standard'>) {
  return {
    channelId: channel.id,
    teamCode: channel.teamCode,
    channelCode: channel.code,
    name: channel.name,
    active: channel.active,
    standard: channel.standard,
  };
}
