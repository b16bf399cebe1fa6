import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toQueuedWebhook, toWebhookRegistration } from './mapper';
import { EDGE_REGISTER_WEBHOOK, EDGE_RESEND_WEBHOOK, EDGE_ROTATE_WEBHOOK_SECRET } from './operation';

/** The request body, as the OpenAPI document (`RegisterWebhookRequest`) lets it through. */
interface RegisterWebhookRequest {
  url: string;
}

/** The request body, as the OpenAPI document (`ResendWebhookRequest`) lets it through. */
interface ResendWebhookRequest {
  orderUuid: string;
  notificationType: string;
}

/**
 * `POST /webhooks`. The edge does not look at the team's state (`principal.teamActive`): rule W1
 * is judged first, so an inactive team still gets 422 for an invalid URL; the webhooks service
 * decides both, in that order.
 */
export const registerWebhook: ResourceRoute = {
  method: 'POST',
  path: '/webhooks',
  operationId: 'registerWebhook',
  access: CHANNEL_SCOPED,
  async handle({ gateway, body }) {
    const { url } = body as RegisterWebhookRequest;
    const { registerWebhook: detail } = await gateway(EDGE_REGISTER_WEBHOOK, { url });
    return { status: 200, body: { data: toWebhookRegistration(detail) } };
  },
};

export const rotateWebhookSecret: ResourceRoute = {
  method: 'POST',
  path: '/webhooks/secret/rotate',
  operationId: 'rotateWebhookSecret',
  access: CHANNEL_SCOPED,
  async handle({ gateway }) {
    const { rotateWebhookSecret: detail } = await gateway(EDGE_ROTATE_WEBHOOK_SECRET, {});
    return { status: 200, body: { data: toWebhookRegistration(detail) } };
  },
};

/**
 * `POST /webhooks/resend`. `orderUuid` goes to the service as sent (the document declares a plain
 * string): a malformed value, an unknown uuid and another channel's order all get the service's
 * one 422 naming `orderUuid` (rule O1).
 */
export const resendWebhook: ResourceRoute = {
  method: 'POST',
  path: '/webhooks/resend',
  operationId: 'resendWebhook',
  access: CHANNEL_SCOPED,
  async handle({ gateway, body }) {
    const { orderUuid, notificationType } = body as ResendWebhookRequest;
    const { resendWebhook: queued } = await gateway(EDGE_RESEND_WEBHOOK, { orderUuid, notificationType });
    return { status: 202, body: { data: toQueuedWebhook(queued) } };
  },
};

/** Every webhook endpoint, in the order of the document. */
export const WEBHOOK_ROUTES: readonly ResourceRoute[] = [registerWebhook, rotateWebhookSecret, resendWebhook];
