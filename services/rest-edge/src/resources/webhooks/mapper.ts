import type { QueuedWebhookFields, WebhookDetailFields } from './operation';

/** The `POST /webhooks` and `POST /webhooks/secret/rotate` body's `data` (OpenAPI `WebhookRegistration`). */
export function toWebhookRegistration(detail: WebhookDetailFields) {
  return { webhookDetail: { url: detail.url, secret: detail.secret } };
}

/** The `POST /webhooks/resend` body's `data` (OpenAPI `QueuedWebhook`); the status in the REST spelling (`pending`). */
export function toQueuedWebhook(queued: QueuedWebhookFields) {
  return {
    deliveryId: queued.deliveryId,
    orderUuid: queued.orderUuid,
    notificationType: queued.notificationType,
    status: queued.status.toLowerCase(),
    queuedAt: queued.queuedAt,
  };
}
