import type { NewDelivery } from './deliveries';
import type { Queryable } from './db';
import type { OrderViewRow } from './read-models';

export interface OrderEventWrite {
  /** The event's id: with the consumer name, the event applies once. */
  eventId: string;
  order: OrderViewRow;
  /** The channel the event's webhook goes to (null: the event sends none, nothing to check). */
  channelId: string | null;
  /** The delivery to queue (already serialised and signed), or null when the event sends none. */
  delivery: NewDelivery | null;
  /**
   * The secret version the delivery was signed with, as the caller's cache knows it; null when the
   * cache says the channel may get no webhook (then a channel that may is "not up to date").
   */
  signedWithVersion: number | null;
}

export interface OrderEventWritten {
  /**
   * False when the channel's registration is not what the caller signed for (rotated, registered
   * or re-registered since it was read): nothing was written for this event, not even the inbox
   * row; sign again.
   */
  upToDate: boolean;
  /** False when the inbox already had the event (a redelivery, or the same event earlier in the run): nothing changed. */
  applied: boolean;
  deliveryId: string | null;
}

/**
 * Applies a run of order events in ONE statement, so one round trip whatever the run's length
 * (a busy machine makes every round trip expensive, and the consumer's rate was bounded by them):
 * the inbox rows, the order read model, and the deliveries, all or nothing.
 *
 * - The registrations of the run's channels are share-locked for the statement, so a rotation
 *   either commits first (the version no longer matches: nothing is written for that channel's
 *   events and the caller signs them again with the new secret) or waits for these deliveries,
 *   which keep the signature they were queued with.
 * - Eligibility (a URL, channel active or unknown, never the Standard channel) is read live: a
 *   deactivation stops new webhooks at once.
 * - The same as applying the events one by one in order: an event id seen twice applies once (the
 *   first); the read model keeps the newest `updatedAt` of an order (of equal ones, the later event).
 * @returns one result per write, in order
 */
export async function writeOrderEvents(db: Queryable, consumer: string, writes: readonly OrderEventWrite[]): Promise<OrderEventWritten[]> {
  if (writes.length === 0) return [];
  const col = <T>(f: (w: OrderEventWrite) => T) => writes.map(f);
  const { rows } = await db.query<{ ord: string; up_to_date: boolean; applied: boolean; delivery_id: string | null }>({
    // Named: each connection parses and plans it once.
    name: 'webhooks-write-order-events',
    text: `WITH input AS (
       SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                            $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::int[], $16::uuid[], $17::text[],
                            $18::bytea[], $19::text[])
              WITH ORDINALITY
         AS u(event_id, order_uuid, team_code, channel_id, channel_code, origin, order_number, status, fulfillable_status,
              created_at, updated_at, confirmed_at, webhook_channel, signed_version, delivery_id, notification_type, body, signature, ord)
     ), ep AS (
       SELECT e.channel_id, e.secret_version,
              (e.url IS NOT NULL AND coalesce(c.active, true) AND NOT coalesce(c.standard, false)) AS eligible
         FROM endpoint e LEFT JOIN channel c ON c.channel_id = e.channel_id
        WHERE e.channel_id IN (SELECT webhook_channel FROM input WHERE webhook_channel IS NOT NULL)
        FOR SHARE OF e
     ), checked AS (
       SELECT i.*,
              NOT EXISTS (SELECT 1 FROM ep WHERE ep.channel_id = i.webhook_channel AND ep.eligible AND ep.secret_version IS DISTINCT FROM i.signed_version) AS up_to_date,
              EXISTS (SELECT 1 FROM ep WHERE ep.channel_id = i.webhook_channel AND ep.eligible) AS eligible,
              i.ord = min(i.ord) OVER (PARTITION BY i.event_id) AS first_of_event
         FROM input i
     ), inbox AS (
       INSERT INTO inbox_event (consumer, event_id)
       SELECT $1, event_id FROM checked WHERE up_to_date AND first_of_event
       ON CONFLICT DO NOTHING
       RETURNING event_id
     ), fresh AS (
       SELECT c.* FROM checked c JOIN inbox USING (event_id) WHERE c.first_of_event
     ), view AS (
       INSERT INTO order_view (order_uuid, team_code, channel_id, channel_code, origin, order_number, status, fulfillable_status, created_at, updated_at, confirmed_at)
       SELECT DISTINCT ON (order_uuid) order_uuid, team_code, channel_id, channel_code, origin, order_number, status, fulfillable_status, created_at, updated_at, confirmed_at
         FROM fresh ORDER BY order_uuid, updated_at DESC, ord DESC
       ON CONFLICT (order_uuid) DO UPDATE SET team_code = EXCLUDED.team_code, channel_id = EXCLUDED.channel_id,
         channel_code = EXCLUDED.channel_code, origin = EXCLUDED.origin, order_number = EXCLUDED.order_number,
         status = EXCLUDED.status, fulfillable_status = EXCLUDED.fulfillable_status, created_at = EXCLUDED.created_at,
         updated_at = EXCLUDED.updated_at, confirmed_at = EXCLUDED.confirmed_at
       WHERE order_view.updated_at <= EXCLUDED.updated_at
     ), queued AS (
       INSERT INTO delivery (id, channel_id, team_code, notification_type, order_uuid, origin, source_event_id, body, signature, secret_version, status, next_attempt_at)
       SELECT delivery_id, webhook_channel, team_code, notification_type, order_uuid, 'event', event_id, body, signature, signed_version, 'pending', now()
         FROM fresh WHERE delivery_id IS NOT NULL AND eligible
        ORDER BY ord -- queue order (seq) is event order
       ON CONFLICT (source_event_id, channel_id) WHERE source_event_id IS NOT NULL DO NOTHING
       RETURNING id
     )
     SELECT c.ord, c.up_to_date, (c.first_of_event AND EXISTS (SELECT 1 FROM inbox WHERE inbox.event_id = c.event_id)) AS applied,
            (SELECT q.id FROM queued q WHERE q.id = c.delivery_id) AS delivery_id
       FROM checked c ORDER BY c.ord`,
    values: [
      consumer,
      col((w) => w.eventId),
      col((w) => w.order.orderUuid),
      col((w) => w.order.teamCode),
      col((w) => w.order.channelId),
      col((w) => w.order.channelCode),
      col((w) => w.order.origin),
      col((w) => w.order.orderNumber),
      col((w) => w.order.status),
      col((w) => w.order.fulfillableStatus),
      col((w) => w.order.createdAt),
      col((w) => w.order.updatedAt),
      col((w) => w.order.confirmedAt),
      col((w) => w.channelId),
      col((w) => w.signedWithVersion),
      col((w) => w.delivery?.id ?? null),
      col((w) => w.delivery?.notificationType ?? null),
      col((w) => w.delivery?.body ?? null),
      col((w) => w.delivery?.signature ?? null),
    ],
  });
  return rows.map((r) => ({ upToDate: r.up_to_date, applied: r.applied, deliveryId: r.delivery_id }));
}
