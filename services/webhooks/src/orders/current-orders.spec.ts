import { createLogger } from '@pf/platform/logging';
import { OrdersWithFallback, type CurrentOrder, type CurrentOrders } from './current-orders';

const order = (status: string): CurrentOrder => ({
  orderUuid: '6f1c1d1e-9d2a-4c1b-8a4e-2f6d7b8c9a0b',
  teamCode: 'acme',
  channelId: 'acme-shop',
  channelCode: 'shop',
  origin: 'api',
  orderNumber: 'A-1',
  status,
  fulfillableStatus: 'fulfillable',
  createdAt: new Date(0),
  updatedAt: new Date(0),
  confirmedAt: null,
});

const answering = (answer: CurrentOrder | null | Error): CurrentOrders => ({
  find: async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  },
});

describe('OrdersWithFallback', () => {
  const logger = createLogger('test', 'silent');

  it('takes the orders service answer, "no such order" included', async () => {
    expect(await new OrdersWithFallback(answering(order('queued')), answering(order('draft')), logger).find('x')).toEqual(order('queued'));
    expect(await new OrdersWithFallback(answering(null), answering(order('draft')), logger).find('x')).toBeNull();
  });

  it('reads the read model only when the orders service cannot answer', async () => {
    expect(await new OrdersWithFallback(answering(new Error('ECONNREFUSED')), answering(order('draft')), logger).find('x')).toEqual(order('draft'));
  });
});
