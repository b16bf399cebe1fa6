import type { Identity } from '@pf/platform/identity';
import type { WebhooksDeps } from './deps';
import { deliveryById, deliveryLog } from './delivery-log';
import { channelWebhook, registerWebhook, rotateWebhookSecret } from './registration';
import { redeliver, resendWebhook } from './resend';

export type { WebhooksDeps } from './deps';
export type { WebhookDetail } from './registration';
export type { QueuedWebhook } from './resend';
export type { DeliveryPage } from './delivery-log';

/** The webhooks use cases bound to their dependencies; what the resolvers call. */
export class WebhooksUseCases {
  constructor(readonly deps: WebhooksDeps) {}

  registerWebhook(identity: Identity, input: { url: string; channelId?: string | null }) {
    return registerWebhook(this.deps, identity, input);
  }
  rotateWebhookSecret(identity: Identity, input: { channelId?: string | null }) {
    return rotateWebhookSecret(this.deps, identity, input);
  }
  resendWebhook(identity: Identity, input: { orderUuid: string; notificationType: string; channelId?: string | null }) {
    return resendWebhook(this.deps, identity, input);
  }
  async redeliverWebhook(identity: Identity, deliveryId: string) {
    const id = await redeliver(this.deps, identity, deliveryId);
    return deliveryById(this.deps, identity, id);
  }
  channelWebhook(identity: Identity, channelId?: string | null) {
    return channelWebhook(this.deps, identity, channelId);
  }
  deliveryLog(identity: Identity, args: Parameters<typeof deliveryLog>[2]) {
    return deliveryLog(this.deps, identity, args);
  }
  delivery(identity: Identity, id: string) {
    return deliveryById(this.deps, identity, id);
  }
}
