import { ANY_CHANNEL_OF_TEAM } from '../../domain/access';
import { unauthenticated } from '../../auth/refusals';
import type { ResourceRoute } from '../resource';
import { toTokenInfo } from './mapper';
import { EDGE_TOKEN } from './operation';

export const getToken: ResourceRoute = {
  method: 'GET',
  path: '/token',
  operationId: 'getToken',
  // Answers for any channel of the token's team (spec section 4).
  access: ANY_CHANNEL_OF_TEAM,
  async handle({ principal, gateway }) {
    const { channel } = await gateway(EDGE_TOKEN, { id: principal.channelId });
    const token = channel?.apiToken;
    // Replaced or revoked between authentication and this read: the token no longer works.
    if (!channel || !token || token.id !== principal.tokenId) throw unauthenticated();
    return { status: 200, body: { data: toTokenInfo(channel, token) } };
  },
};
