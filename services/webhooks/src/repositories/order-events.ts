import type { NewDelivery } from './deliveries';
import type { Queryable } from './db';
import type { OrderViewRow } from './read-models';

export interface OrderEventWrite {
  /** Inbox consumer name and the event's id: the event applies once. */
  consumer: string;
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
   * or re-registered since it was read): nothing was written, not even the inbox row; sign again.
   */
  upToDate: boolean;
  /** False when the inbox already had the event (a redelivery): nothing changed. */
  applied: boolean;
  deliveryId: string | null;
}

/**
 * Applies one order event in ONE statement (one round trip; the caller's transaction may hold
 * many): the inbox row, the order read model, and the delivery, all or nothing. The channel's
 * registration is share-locked until the transaction ends, so a rotation either commits first
 * (then the version no longer matches and nothing is written: the caller signs again with the new
 * secret) or waits for this delivery, which keeps the signature it was queued with. Eligibility (a URL, channel active or unknown, never the
 * Standard channel) is read live: a deactivation stops new webhooks at once.
 */
export async function writeOrderEvent(db: Queryable, w: OrderEventWrite): Promise<OrderEventWritten> {
  const o = w.order;
  const d = w.delivery;
  const { rows } = await db.query<{ up_to_date: boolean; applied: boolean; delivery_id: string | null }>({
    // Named: each connection parses and plans it once (planning this statement costs more than running it).
    name: 'webhooks-write-order-event',
    text: `WITH ep AS (
       SELECT e.secret_version,
              (e.url IS NOT NULL AND coalesce(c.active, true) AND NOT coalesce(c.standard, false)) AS eligible
         FROM endpoint e LEFT JOIN channel c ON c.channel_id = e.channel_id
        WHERE e.channel_id = $14
        FOR SHARE OF e
     ), current AS (
       SELECT NOT EXISTS (SELECT 1 FROM ep WHERE eligible AND secret_version IS DISTINCT FROM $15::int) AS up_to_date
     ), inbox AS (
       INSERT INTO inbox_event (consumer, event_id)
       SELECT $1, $2::uuid FROM current WHERE up_to_date
       ON CONFLICT DO NOTHING
       RETURNING 1
     ), view AS (
       INSERT INTO order_view (order_uuid, team_code, channel_id, channel_code, origin, order_number, status, fulfillable_status, created_at, updated_at, confirmed_at)
       SELECT $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 WHERE EXISTS (SELECT 1 FROM inbox)
       ON CONFLICT (order_uuid) DO UPDATE SET team_code = EXCLUDED.team_code, channel_id = EXCLUDED.channel_id,
         channel_code = EXCLUDED.channel_code, origin = EXCLUDED.origin, order_number = EXCLUDED.order_number,
         status = EXCLUDED.status, fulfillable_status = EXCLUDED.fulfillable_status, created_at = EXCLUDED.created_at,
         updated_at = EXCLUDED.updated_at, confirmed_at = EXCLUDED.confirmed_at
       WHERE order_view.updated_at <= EXCLUDED.updated_at
     ), queued AS (
       INSERT INTO delivery (id, channel_id, team_code, notification_type, order_uuid, origin, source_event_id, body, signature, secret_version, status, next_attempt_at)
       SELECT $16::uuid, $14, $17, $18, $3, 'event', $2::uuid, $19::bytea, $20, $15::int, 'pending', now()
        WHERE $16::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM inbox) AND EXISTS (SELECT 1 FROM ep WHERE eligible)
       ON CONFLICT (source_event_id, channel_id) WHERE source_event_id IS NOT NULL DO NOTHING
       RETURNING id
     )
     SELECT (SELECT up_to_date FROM current) AS up_to_date, EXISTS (SELECT 1 FROM inbox) AS applied, (SELECT id FROM queued) AS delivery_id`,
    values: [
      w.consumer,
      w.eventId,
      o.orderUuid,
      o.teamCode,
      o.channelId,
      o.channelCode,
      o.origin,
      o.orderNumber,
      o.status,
      o.fulfillableStatus,
      o.createdAt,
      o.updatedAt,
      o.confirmedAt,
      w.channelId,
      w.signedWithVersion,
      d?.id ?? null,
      d?.teamCode ?? null,
      d?.notificationType ?? null,
      d?.body ?? null,
      d?.signature ?? null,
    ],
  });
  const row = rows[0]!;
  return { upToDate: row.up_to_date, applied: row.applied, deliveryId: row.delivery_id };
}
