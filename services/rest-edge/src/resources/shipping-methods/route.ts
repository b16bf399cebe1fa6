import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toShippingMethod } from './mapper';
import { EDGE_SHIPPING_METHODS } from './operation';

export const listShippingMethods: ResourceRoute = {
  method: 'GET',
  path: '/shipping-methods',
  operationId: 'listShippingMethods',
  access: CHANNEL_SCOPED,
  async handle({ gateway }) {
    const { shippingMethods } = await gateway(EDGE_SHIPPING_METHODS, {});
    return { status: 200, body: { data: shippingMethods.map(toShippingMethod) } };
  },
};
