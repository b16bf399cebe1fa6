import { Problem } from '@pf/platform/problems';
import type { WebhooksDeps } from './deps';
import { resendWebhook } from './resend';

/** The resend's checks that come before any queueing (the queueing itself: test/delivery.int.spec.ts). */
describe('resendWebhook: what it refuses', () => {
  const shop = { kind: 'channel' as const, teamCode: 'acme', channelId: 'acme-shop' };
  const refusal = async (deps: Partial<WebhooksDeps>, orderUuid: string, notificationType: string) => {
    try {
      await resendWebhook(deps as WebhooksDeps, shop, { orderUuid, notificationType });
    } catch (err) {
      if (err instanceof Problem) return { type: err.problemType, properties: err.violations?.map((v) => v.property) };
      throw err;
    }
    throw new Error('not refused');
  };
  const ORDER = '0f8c2d5e-3b7a-4c1d-9e6f-5a4b3c2d1e0f';

  it('a type it does not resend, for an order the channel cannot see: both fields named', async () => {
    const none = { orders: { find: async () => null } } as unknown as Partial<WebhooksDeps>;
    expect(await refusal(none, ORDER, 'fulfilment-status-updated')).toEqual({ type: 'validation-failed', properties: ['orderUuid', 'notificationType'] });
  });

  it('the orders service out of reach: a type it does not resend is still a 422 naming the type, not a 5xx', async () => {
    const down = { orders: { find: async () => Promise.reject(new Error('orders unreachable')) } } as unknown as Partial<WebhooksDeps>;
    expect(await refusal(down, ORDER, 'fulfilment-status-updated')).toEqual({ type: 'validation-failed', properties: ['notificationType'] });
  });
});
