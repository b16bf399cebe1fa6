import { Problem } from '@pf/platform/problems';
import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toChannelResource } from './mapper';
import { EDGE_CHANNEL } from './operation';

export const getChannel: ResourceRoute = {
  method: 'GET',
  path: '/',
  operationId: 'getChannel',
  access: CHANNEL_SCOPED,
  async handle({ principal, gateway }) {
    const { channel } = await gateway(EDGE_CHANNEL, { id: principal.pathChannelId });
    if (!channel) throw Problem.notFound('This channel could not be found for this token.');
    return { status: 200, body: { data: toChannelResource(channel) } };
  },
};
