import { defineOperation } from '../../upstream/graphql';

export interface TokenChannelFields {
  id: string;
  teamCode: string;
  apiToken: { id: string; prefix: string; channelId: string; createdAt: string } | null;
}

/** `GET /token`: the token's own channel and its current token's public facts. */
export const EDGE_TOKEN = defineOperation<{ id: string }, { channel: TokenChannelFields | null }>(`
  query EdgeToken($id: ID!) {
    channel(id: $id) { id teamCode apiToken { id prefix channelId createdAt } }
  }
`);
