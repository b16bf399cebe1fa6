import { defineOperation } from '../../upstream/graphql';

export interface ChannelFields {
  id: string;
  code: string;
  teamCode: string;
  name: string;
  active: boolean;
}

/** `GET /`: the path channel, read as the channel identity (which sees only its own channel). */
export const EDGE_CHANNEL = defineOperation<{ id: string }, { channel: ChannelFields | null }>(`
  query EdgeChannel($id: ID!) {
    channel(id: $id) { id code teamCode name active }
  }
`);
