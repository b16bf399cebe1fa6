import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toTestConnectionResult } from './mapper';
import { EDGE_TEST_CONNECTION } from './operation';

/** The request body, as the OpenAPI document (`TestConnectionRequest`) lets it through. */
interface TestConnectionRequest {
  echo?: string;
}

export const testConnection: ResourceRoute = {
  method: 'POST',
  path: '/test-connection',
  operationId: 'testConnection',
  access: CHANNEL_SCOPED,
  async handle({ principal, gateway, body, apiVersion }) {
    const { channel } = await gateway(EDGE_TEST_CONNECTION, { id: principal.channelId });
    if (!channel) throw new Error('The gateway did not return the authenticated channel');
    const echo = (body as TestConnectionRequest | undefined)?.echo;
    return { status: 200, body: { data: toTestConnectionResult(channel, apiVersion, echo) } };
  },
};
