import { randomUUID } from 'node:crypto';
import type { Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { authoriseBackOffice, maySeeTeam, targetChannel } from '../domain/authorisation';
import { mayQueueNewWebhooks } from '../domain/delivery-rules';
import {
  isResendableType,
  orderCreatedPayload,
  orderFulfillableStatusUpdatedPayload,
  orderStatusUpdatedPayload,
  RESENDABLE_TYPES,
  type OrderSnapshot,
  type ResendableType,
} from '../domain/notifications';
import { inTransaction } from '../repositories/db';
import { findOpenRedelivery, findStoredDelivery, insertDeliveries, lockRedeliveryOf } from '../repositories/deliveries';
import { endpointForQueueing } from '../repositories/endpoints';
import type { CurrentOrder } from '../orders/current-orders';
import type { WebhooksDeps } from './deps';
import { queueResend, signedNow, type Notification } from './queueing';

/** What a resend answers: the delivery it queued. */
export interface QueuedWebhook {
  deliveryId: string;
  notificationType: ResendableType;
  orderUuid: string;
  status: 'pending';
  queuedAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rule O1: the same violation for an order that does not exist and one the channel may not see. */
const ORDER_NOT_FOUND: Violation = { property: 'orderUuid', message: 'No order with this uuid was found for this channel.' };
const orderNotFound = () => Problem.validation([ORDER_NOT_FOUND], 'The order could not be found.');

function snapshotOf(o: CurrentOrder): OrderSnapshot {
  return {
    orderUuid: o.orderUuid,
    teamCode: o.teamCode,
    channelCode: o.channelCode,
    orderNumber: o.orderNumber,
    status: o.status,
    fulfillableStatus: o.fulfillableStatus,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    confirmedAt: o.confirmedAt?.toISOString() ?? null,
  };
}

/** The resent webhook describes the order as it is now (no "original" status: null). */
function currentStateNotification(type: ResendableType, order: CurrentOrder): Notification {
  const snapshot = snapshotOf(order);
  switch (type) {
    case 'order-created':
      return { notificationType: type, orderUuid: order.orderUuid, payload: orderCreatedPayload(snapshot) };
    case 'order-status-updated':
      return { notificationType: type, orderUuid: order.orderUuid, payload: orderStatusUpdatedPayload(snapshot, null, order.status) };
    case 'order-fulfillable-status-updated':
      return { notificationType: type, orderUuid: order.orderUuid, payload: orderFulfillableStatusUpdatedPayload(snapshot, null, order.fulfillableStatus) };
  }
}

/**
 * `POST /webhooks/resend`: queues an order-level webhook describing the order's current state (as
 * the orders service has it),
 * signed with the channel's current secret. Only orders created through the API on this channel
 * (rule O1); any other uuid, known or not, gets the same 422.
 */
export async function resendWebhook(
  deps: WebhooksDeps,
  identity: Identity,
  input: { orderUuid: string; notificationType: string; channelId?: string | null },
): Promise<QueuedWebhook> {
  const ref = targetChannel(identity, input.channelId);
  // Asked of the orders service, not of the read model, which lags it: an order created a moment
  // ago is the channel's to resend, and its current state is what the webhook describes.
  const visible = async () => {
    const found = UUID.test(input.orderUuid) ? await deps.orders.find(input.orderUuid.toLowerCase()) : null;
    return found && found.origin === 'api' && found.channelId === ref.channelId ? found : null;
  };
  if (!isResendableType(input.notificationType)) {
    // Every field at fault is named at once (section 7); the type alone if the order cannot be looked up now.
    const orderFound = await visible().then(
      (o) => o !== null,
      () => true,
    );
    throw Problem.validation([
      ...(orderFound ? [] : [ORDER_NOT_FOUND]),
      { property: 'notificationType', message: `Must be one of ${RESENDABLE_TYPES.join(', ')}.` },
    ]);
  }
  const type = input.notificationType;
  const order = await visible();
  if (!order) throw orderNotFound();

  return inTransaction(deps.pool, async (tx) => {
    const queued = await queueResend(deps, tx, ref.channelId, () => currentStateNotification(type, order));
    if (!queued) throw await notQueueable(deps, ref.channelId);
    return { deliveryId: queued.id, notificationType: type, orderUuid: order.orderUuid, status: 'pending' as const, queuedAt: queued.queuedAt };
  });
}

/** Why a channel gets no new webhook: no URL registered (422 naming `url`), or inactive (403). */
async function notQueueable(deps: WebhooksDeps, channelId: string): Promise<Problem> {
  const endpoint = await endpointForQueueing(deps.pool, channelId);
  if (!endpoint?.url) {
    return Problem.validation([{ property: 'url', message: 'No webhook URL is registered for this channel (POST /webhooks).' }], 'No webhook URL is registered for this channel.');
  }
  if (endpoint.channel?.standard) return new Problem('standard-channel', { detail: 'The Standard channel cannot receive webhooks.' });
  return new Problem('channel-inactive', { detail: 'The channel is inactive; no new webhooks are sent to it.' });
}

/**
 * Back-office: sends a failed delivery again as a new delivery with the same bytes (and a fresh set
 * of attempts), signed when queued like every webhook: with the channel's secret as it is now, so a
 * redelivery after a rotation verifies with the new secret (spec section 6: a webhook re-sent
 * after rotation uses the new secret). Only while the channel may get new webhooks. A redelivery
 * of it still waiting to be delivered is answered instead of queueing another.
 */
export async function redeliver(deps: WebhooksDeps, identity: Identity, deliveryId: string) {
  authoriseBackOffice(identity);
  const notFound = () => Problem.notFound(`Delivery ${deliveryId} was not found.`);
  if (!UUID.test(deliveryId)) throw notFound();
  return inTransaction(deps.pool, async (tx) => {
    const original = await findStoredDelivery(tx, deliveryId.toLowerCase());
    if (!original || !maySeeTeam(identity, original.teamCode)) throw notFound();
    if (original.status !== 'failed') {
      throw new Problem('conflict', { detail: `Only a failed delivery can be redelivered; this one is ${original.status}.` });
    }
    const endpoint = await endpointForQueueing(tx, original.channelId);
    if (!endpoint || !mayQueueNewWebhooks(endpoint.channel, endpoint.url)) throw await notQueueable(deps, original.channelId);
    // A redelivery of it still waiting is the answer (a second click sends nothing twice).
    await lockRedeliveryOf(tx, original.id);
    const waiting = await findOpenRedelivery(tx, original.id);
    if (waiting) return waiting;
    const [queued] = await insertDeliveries(tx, [
      {
        id: randomUUID(),
        channelId: original.channelId,
        teamCode: original.teamCode,
        notificationType: original.notificationType,
        orderUuid: original.orderUuid,
        origin: 'redelivery',
        sourceEventId: null,
        redeliveryOf: original.id,
        body: original.body,
        ...signedNow(deps, endpoint, original.body),
      },
    ]);
    deps.logger.info({ deliveryId: queued!.id, redeliveryOf: original.id, channelId: original.channelId }, 'failed delivery queued again');
    return queued!.id;
  });
}
