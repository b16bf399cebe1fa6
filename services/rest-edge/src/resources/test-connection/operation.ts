import { defineOperation } from '../../upstream/graphql';

/** `POST /test-connection`: the cheapest read that proves the whole path (edge, gateway, accounts) accepts the caller. */
export const EDGE_TEST_CONNECTION = defineOperation<{ id: string }, { channel: { id: string; teamCode: string } | null }>(`
  query EdgeTestConnection($id: ID!) {
    channel(id: $id) { id teamCode }
  }
`);
