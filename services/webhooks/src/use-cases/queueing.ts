import { randomUUID } from 'node:crypto';
import { mayQueueNewWebhooks } from '../domain/delivery-rules';
import { serialiseBody, signBody, type NotificationType } from '../domain/notifications';
import type { Tx } from '../repositories/db';
import { insertDeliveries, type DeliveryOrigin, type NewDelivery } from '../repositories/deliveries';
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
 * Queues a NEW webhook to one channel, in the caller's transaction, if the channel may get one:
 * a registered URL (rule W2), active, not the Standard channel. The registration stays
 * share-locked until the transaction ends, so a rotation either happened before (new secret) or
 * waits until this delivery is queued (and it keeps the old signature, as the contract says).
 * @returns the delivery id, or null when nothing was queued
 */
export async function queueForChannel(
  deps: WebhooksDeps,
  tx: Tx,
  channelId: string,
  build: (endpoint: QueueingEndpoint) => Notification,
  origin: DeliveryOrigin,
  sourceEventId: string | null,
): Promise<string | null> {
  const endpoint = await endpointForQueueing(tx, channelId);
  if (!endpoint || !mayQueueNewWebhooks(endpoint.channel, endpoint.url)) return null;
  const delivery = prepare(deps, endpoint, build(endpoint), origin, sourceEventId);
  const [id] = await insertDeliveries(tx, [delivery]);
  return id ?? null;
}

/** Queues one webhook to every channel of the team that may get one (the stock webhook). */
export async function queueForTeam(
  deps: WebhooksDeps,
  tx: Tx,
  teamCode: string,
  build: (endpoint: QueueingEndpoint) => Notification,
): Promise<string[]> {
  const endpoints = (await teamEndpointsForQueueing(tx, teamCode)).filter((e) => mayQueueNewWebhooks(e.channel, e.url));
  return insertDeliveries(
    tx,
    endpoints.map((e) => prepare(deps, e, build(e), 'event', null)),
  );
}
