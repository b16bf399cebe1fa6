import { toQueuedWebhook, toWebhookRegistration } from './mapper';

describe('webhook mappers', () => {
  it('answers the registration as webhookDetail {url, secret}, without the channel id', () => {
    expect(toWebhookRegistration({ channelId: 'acme-shop', url: 'https://1.1.1.1/hooks', secret: 'whsec_x' })).toEqual({
      webhookDetail: { url: 'https://1.1.1.1/hooks', secret: 'whsec_x' },
    });
    expect(toWebhookRegistration({ channelId: 'acme-shop', url: null, secret: 'whsec_x' })).toEqual({ webhookDetail: { url: null, secret: 'whsec_x' } });
  });

  it('spells the queued delivery status in lower case, as the REST API spells statuses', () => {
    const queued = { deliveryId: 'd1', notificationType: 'order-created', orderUuid: 'u1', status: 'PENDING', queuedAt: '2026-01-01T00:00:00.000Z' };
    expect(toQueuedWebhook(queued)).toEqual({ ...queued, status: 'pending' });
  });
});
