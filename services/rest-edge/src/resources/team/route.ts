import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toTeamResource } from './mapper';
import { EDGE_TEAM } from './operation';

export const getTeam: ResourceRoute = {
  method: 'GET',
  path: '/team',
  operationId: 'getTeam',
  access: CHANNEL_SCOPED,
  async handle({ gateway }) {
    const { team } = await gateway(EDGE_TEAM, {});
    // The token was just found in this team: a missing team is a fault, not a client error.
    if (!team) throw new Error('The gateway did not return the authenticated team');
    return { status: 200, body: { data: toTeamResource(team) } };
  },
};
