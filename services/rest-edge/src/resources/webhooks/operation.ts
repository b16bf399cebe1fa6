import { defineOperation } from '../../upstream/graphql';

/** The webhooks subgraph's `WebhookDetail`: the registration with its current signing secret. */
export interface WebhookDetailFields {
  channelId: string;
  url: string | null;
  secret: string;
}

/** The webhooks subgraph's `QueuedWebhook`: what a resend queued. */
export interface QueuedWebhookFields {
  deliveryId: string;
  notificationType: string;
  orderUuid: string;
  /** `WebhookDeliveryStatus` (PENDING when just queued). */
  status: string;
  queuedAt: string;
}

/**
 * `POST /webhooks`: rule W1 on the URL first (422 naming `url`), then the team's state (403
 * `team-inactive`) — both judged by the webhooks service, in that order, so the edge checks neither.
 */
export const EDGE_REGISTER_WEBHOOK = defineOperation<{ url: string }, { registerWebhook: WebhookDetailFields }>(`
  mutation EdgeRegisterWebhook($url: String!) {
    registerWebhook(url: $url) { channelId url secret }
  }
`);

/** `POST /webhooks/secret/rotate`: a new secret for the token's channel. */
export const EDGE_ROTATE_WEBHOOK_SECRET = defineOperation<Record<string, never>, { rotateWebhookSecret: WebhookDetailFields }>(`
  mutation EdgeRotateWebhookSecret {
    rotateWebhookSecret { channelId url secret }
  }
`);

/**
 * `POST /webhooks/resend`: queues an order-level webhook. Rule O1 (unknown, malformed or invisible
 * uuid: one 422 naming `orderUuid`) and the type check are the webhooks service's.
 */
export const EDGE_RESEND_WEBHOOK = defineOperation<
  { orderUuid: string; notificationType: string },
  { resendWebhook: QueuedWebhookFields }
>(`
  mutation EdgeResendWebhook($orderUuid: ID!, $notificationType: String!) {
    resendWebhook(orderUuid: $orderUuid, notificationType: $notificationType) { deliveryId notificationType orderUuid status queuedAt }
  }
`);
