import { randomUUID } from 'node:crypto';
import { mayQueueNewWebhooks } from '../domain/delivery-rules';
import { serialiseBody, signBody, type NotificationType } from '../domain/notifications';
import type { Tx } from '../repositories/db';
import { findOpenResend, insertDeliveries, lockResendKey, type DeliveryOrigin, type NewDelivery } from '../repositories/deliveries';
import { endpointForQueueing, teamEndpointsForQueueing, type QueueingEndpoint } from '../repositories/endpoints';
import type { WebhooksDeps } from './deps';

/** What to send: built per channel, since the payload names the channel. */
export interface Notification {
  notificationType: NotificationType;
  orderUuid: string | null;
  payload: object;
}

/**
 * Serialises and signs ONE notification for one channel, as it will be sent on every attempt:
 * the bytes once, the signature over them with the channel's secret as it is now.
 */
function prepare(deps: WebhooksDeps, endpoint: QueueingEndpoint, n: Notification, origin: DeliveryOrigin, sourceEventId: string | null): NewDelivery {
  const body = serialiseBody(n.payload);
  return {
    id: randomUUID(),
    channelId: endpoint.channelId,
    teamCode: endpoint.teamCode,
    notificationType: n.notificationType,
    orderUuid: n.orderUuid,
    origin,
    sourceEventId,
    redeliveryOf: null,
    body,
    ...signedNow(deps, endpoint, body),
  };
}

/** A webhook is signed when queued: with the channel's secret as it is now, and that secret's version. */
export function signedNow(deps: WebhooksDeps, endpoint: QueueingEndpoint, body: Buffer): Pick<NewDelivery, 'signature' | 'secretVersion'> {
  return { signature: signBody(body, deps.secrets.open(endpoint.secret, endpoint.channelId)), secretVersion: endpoint.secretVersion };
}

/**
 * Queues a resend to one channel, in the caller's transaction, if the channel may get a new
 * webhook: a registered URL (rule W2), active, not the Standard channel. The registration stays
 * share-locked until the transaction ends, so a rotation either happened before (new secret) or
 * waits until this delivery is queued (and it keeps the old signature, as the contract says).
 *
 * Unless the same webhook is waiting already: an open resend of the order and type with the same
 * bytes, signed with the same secret, is answered instead. A shop repeating its request gets the
 * one delivery, and a shop aiming resends at a URL (each delivery retried up to five times) gets no
 * more deliveries than that. A changed order or a rotated secret makes a new webhook.
 * @returns the delivery and when it was queued, or null when nothing may be queued
 */
export async function queueResend(
  deps: WebhooksDeps,
  tx: Tx,
  channelId: string,
  build: (endpoint: QueueingEndpoint) => Notification,
): Promise<{ id: string; queuedAt: Date } | null> {
  const endpoint = await endpointForQueueing(tx, channelId);
  if (!endpoint || !mayQueueNewWebhooks(endpoint.channel, endpoint.url)) return null;
  const delivery = prepare(deps, endpoint, build(endpoint), 'resend', null);
  await lockResendKey(tx, channelId, delivery.orderUuid, delivery.notificationType);
  const waiting = await findOpenResend(tx, delivery);
  if (waiting) return { id: waiting.id, queuedAt: waiting.createdAt };
  const [queued] = await insertDeliveries(tx, [delivery]);
  return queued ? { id: queued.id, queuedAt: queued.createdAt } : null;
}

/** Queues one webhook to every channel of the team that may get one (the stock webhook). */
export async function queueForTeam(
  deps: WebhooksDeps,
  tx: Tx,
  teamCode: string,
  build: (endpoint: QueueingEndpoint) => Notification,
): Promise<string[]> {
  const endpoints = (await teamEndpointsForQueueing(tx, teamCode)).filter((e) => mayQueueNewWebhooks(e.channel, e.url));
  const queued = await insertDeliveries(
    tx,
    endpoints.map((e) => prepare(deps, e, build(e), 'event', null)),
  );
  return queued.map((q) => q.id);
}
