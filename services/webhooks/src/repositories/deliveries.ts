import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import type { Queryable } from './db';

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';
export type DeliveryOrigin = 'event' | 'resend' | 'redelivery';

/** A delivery about to be queued: bytes and signature are final. */
export interface NewDelivery {
  id: string;
  channelId: string;
  teamCode: string;
  notificationType: string;
  orderUuid: string | null;
  origin: DeliveryOrigin;
  sourceEventId: string | null;
  redeliveryOf: string | null;
  body: Buffer;
  signature: string;
  secretVersion: number;
}

/** The channel the delivery workers LISTEN on. */
export const DELIVERY_CHANNEL = 'pf_webhooks_delivery';

/**
 * Queues deliveries, due at once, and NOTIFYs the workers (delivered on commit). A second
 * delivery for the same source event and channel is ignored (its id is not returned).
 */
/**
 * The open resend (pending or being sent) of the channel with exactly these bytes, signed with this
 * secret version, if there is one; the caller holds the resend's lock (lockResendKey).
 */
export async function findOpenResend(
  db: Queryable,
  d: Pick<NewDelivery, 'channelId' | 'orderUuid' | 'notificationType' | 'body' | 'secretVersion'>,
): Promise<{ id: string; createdAt: Date } | null> {
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM delivery
      WHERE channel_id = $1 AND order_uuid = $2 AND notification_type = $3 AND origin = 'resend' AND status IN ('pending', 'sending')
        AND secret_version = $4 AND body = $5
      ORDER BY created_at DESC LIMIT 1`,
    [d.channelId, d.orderUuid, d.notificationType, d.secretVersion, d.body],
  );
  return rows[0] ? { id: rows[0].id, createdAt: rows[0].created_at } : null;
}

/** Serialises the resends of one order and type to one channel until the transaction ends. */
export async function lockResendKey(db: Queryable, channelId: string, orderUuid: string | null, notificationType: string): Promise<void> {
  await lockKey(db, `webhooks.resend:${channelId}:${orderUuid}:${notificationType}`);
}

/** Serialises the redeliveries of one delivery until the transaction ends. */
export async function lockRedeliveryOf(db: Queryable, deliveryId: string): Promise<void> {
  await lockKey(db, `webhooks.redeliver:${deliveryId}`);
}

async function lockKey(db: Queryable, key: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/** A redelivery of `deliveryId` still waiting to be delivered (queued, being sent, or between attempts), if any. */
export async function findOpenRedelivery(db: Queryable, deliveryId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM delivery WHERE redelivery_of = $1 AND status IN ('pending', 'sending') ORDER BY created_at DESC LIMIT 1`,
    [deliveryId],
  );
  return rows[0]?.id ?? null;
}

/** Inserts deliveries (one an event gave already is skipped); each inserted one's id and queue time, as stored. */
export async function insertDeliveries(tx: Queryable, deliveries: readonly NewDelivery[]): Promise<{ id: string; createdAt: Date }[]> {
  if (deliveries.length === 0) return [];
  const cols = (f: (d: NewDelivery) => unknown) => deliveries.map(f);
  const { rows } = await tx.query<{ id: string; created_at: Date }>(
    `INSERT INTO delivery (id, channel_id, team_code, notification_type, order_uuid, origin, source_event_id, redelivery_of,
                           body, signature, secret_version, status, next_attempt_at)
     SELECT u.id, u.channel_id, u.team_code, u.notification_type, u.order_uuid, u.origin, u.source_event_id, u.redelivery_of,
            u.body, u.signature, u.secret_version, 'pending', now()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::uuid[], $8::uuid[], $9::bytea[], $10::text[], $11::int[])
            WITH ORDINALITY AS u(id, channel_id, team_code, notification_type, order_uuid, origin, source_event_id, redelivery_of, body, signature, secret_version, ord)
      ORDER BY u.ord
     ON CONFLICT (source_event_id, channel_id) WHERE source_event_id IS NOT NULL DO NOTHING
     RETURNING id, created_at`,
    [
      cols((d) => d.id),
      cols((d) => d.channelId),
      cols((d) => d.teamCode),
      cols((d) => d.notificationType),
      cols((d) => d.orderUuid),
      cols((d) => d.origin),
      cols((d) => d.sourceEventId),
      cols((d) => d.redeliveryOf),
      cols((d) => d.body),
      cols((d) => d.signature),
      cols((d) => d.secretVersion),
    ],
  );
  if (rows.length > 0) await tx.query('SELECT pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
}

/**
 * What the attempt log says of an attempt whose lease ran out before its answer was recorded
 * (outcome `failed`, no status code, no URL). Its worker stopped (a crash, a kill) or overran the
 * lease; in the second case its own record, when it comes, takes this one's place.
 */
export const INTERRUPTED_ATTEMPT_ERROR =
  'interrupted: no answer was recorded before the lease of this attempt ran out (the service stopped or overran it); the receiver may have received the webhook';

/**
 * From the attempt's claim (`updated_at` of the row being sent) to the end of its lease
 * (`next_attempt_at`): bounded by the lease, however long ago the worker died.
 */
const INTERRUPTED_DURATION_MS_SQL = 'LEAST(GREATEST(0, floor(extract(epoch FROM c.next_attempt_at - c.updated_at) * 1000)), 2147483647)::int';

/** A delivery claimed by a worker for one attempt. */
export interface ClaimedDelivery {
  id: string;
  channelId: string;
  notificationType: string;
  body: Buffer;
  signature: string;
  /** The number of the attempt being made (1-based). */
  attempt: number;
  leaseToken: string;
  /** The channel's registered URL now (registering again replaces it for retries too). */
  url: string | null;
  createdAt: Date;
}

/**
 * Claims due deliveries for one attempt each: pending ones whose time has come, and ones being
 * sent whose lease ran out (their worker died). `FOR UPDATE SKIP LOCKED` lets replicas claim
 * side by side without waiting or taking the same row; the lease (a due time in the future and a
 * token) keeps every other worker off the row until the attempt is recorded or the lease ends.
 * Rows come in queue order: due time, then the order they were queued in (`seq`).
 *
 * `channelRoom` limits channels (the worker's slow ones, see ChannelLoad): a channel listed takes
 * at most that many rows, and one with 0 is passed over (its rows stay due, in order), so the rows
 * behind a slow receiver's backlog are reached; `limitedTotal` caps the listed channels' rows
 * together. Channels not listed are not limited. A row taken up because its lease ran out has its
 * interrupted attempt logged in the same statement.
 */
export async function claimDueDeliveries(
  db: Queryable,
  opts: { limit: number; leaseSeconds: number; maxAttempts: number; channelRoom?: ReadonlyMap<string, number>; limitedTotal?: number },
): Promise<ClaimedDelivery[]> {
  const token = randomUUID();
  const limited = [...(opts.channelRoom ?? new Map<string, number>())];
  const { rows } = await db.query<{
    id: string;
    channel_id: string;
    notification_type: string;
    body: Buffer;
    signature: string;
    attempt_count: number;
    url: string | null;
    created_at: Date;
    rank: string;
  }>({
    name: 'webhooks-claim-due-deliveries',
    text: `WITH limited AS (
       SELECT * FROM unnest($5::text[], $6::int[]) AS l(channel_id, room)
     ), candidates AS (
       SELECT id, channel_id, next_attempt_at, seq, status, attempt_count, updated_at FROM delivery
        WHERE status IN ('pending', 'sending') AND next_attempt_at <= now() AND attempt_count < $3
          AND channel_id <> ALL (SELECT channel_id FROM limited WHERE room <= 0)
        ORDER BY next_attempt_at, seq
        LIMIT $1
        FOR UPDATE SKIP LOCKED
     ), within_room AS (
       SELECT id, rank, room, row_number() OVER (PARTITION BY room IS NULL ORDER BY rank) AS nth_limited FROM (
         SELECT c.id, l.room, row_number() OVER (ORDER BY c.next_attempt_at, c.seq) AS rank,
                row_number() OVER (PARTITION BY c.channel_id ORDER BY c.next_attempt_at, c.seq) AS nth
           FROM candidates c LEFT JOIN limited l ON l.channel_id = c.channel_id
       ) ranked
        WHERE room IS NULL OR nth <= room
     ), due AS (
       SELECT id, rank FROM within_room WHERE room IS NULL OR $7::int IS NULL OR nth_limited <= $7::int
     ), interrupted AS (
       -- A row still 'sending' is one whose lease ran out: log its attempt before the next one.
       INSERT INTO delivery_attempt (delivery_id, attempt_number, started_at, duration_ms, url, outcome, status_code, error, next_attempt_at)
       SELECT c.id, c.attempt_count, c.updated_at, ${INTERRUPTED_DURATION_MS_SQL}, NULL, 'failed', NULL, $8, now()
         FROM candidates c JOIN due ON due.id = c.id
        WHERE c.status = 'sending'
     )
     UPDATE delivery d
        SET status = 'sending', attempt_count = d.attempt_count + 1, lease_token = $4,
            next_attempt_at = now() + make_interval(secs => $2), updated_at = now()
       FROM due
      WHERE d.id = due.id
     RETURNING d.id, d.channel_id, d.notification_type, d.body, d.signature, d.attempt_count, d.created_at, due.rank,
               (SELECT e.url FROM endpoint e WHERE e.channel_id = d.channel_id) AS url`,
    values: [
      opts.limit,
      opts.leaseSeconds,
      opts.maxAttempts,
      token,
      limited.map(([c]) => c),
      limited.map(([, n]) => n),
      opts.limitedTotal === undefined || !Number.isFinite(opts.limitedTotal) ? null : Math.max(0, opts.limitedTotal),
      INTERRUPTED_ATTEMPT_ERROR,
    ],
  });
  // In queue order: due time, then the order they were queued in.
  rows.sort((a, b) => Number(a.rank) - Number(b.rank));
  return rows.map((r) => ({
    id: r.id,
    channelId: r.channel_id,
    notificationType: r.notification_type,
    body: r.body,
    signature: r.signature,
    attempt: r.attempt_count,
    leaseToken: token,
    url: r.url,
    createdAt: r.created_at,
  }));
}

/**
 * A delivery whose last allowed attempt was interrupted (its worker died and the lease ran out)
 * fails: its attempts are used up, and sending it again could exceed them. The attempt is logged
 * as interrupted.
 */
export async function failInterruptedLastAttempts(db: Queryable, maxAttempts: number): Promise<number> {
  const { rowCount } = await db.query(
    `WITH c AS (
       SELECT id, attempt_count, updated_at, next_attempt_at FROM delivery
        WHERE status = 'sending' AND next_attempt_at <= now() AND attempt_count >= $1
        FOR UPDATE SKIP LOCKED
     ), failed AS (
       UPDATE delivery d SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, completed_at = now(), updated_at = now(),
              last_error = $2, last_status_code = NULL
         FROM c WHERE d.id = c.id
       RETURNING d.id
     )
     INSERT INTO delivery_attempt (delivery_id, attempt_number, started_at, duration_ms, url, outcome, status_code, error, next_attempt_at)
     SELECT c.id, c.attempt_count, c.updated_at, ${INTERRUPTED_DURATION_MS_SQL}, NULL, 'failed', NULL, $2, NULL
       FROM c JOIN failed ON failed.id = c.id`,
    [maxAttempts, INTERRUPTED_ATTEMPT_ERROR],
  );
  return rowCount ?? 0;
}

/** The record of one attempt and what the delivery becomes. */
export interface AttemptRecord {
  deliveryId: string;
  leaseToken: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  url: string | null;
  outcome: 'succeeded' | 'failed' | 'refused';
  statusCode: number | null;
  error: string | null;
  /** The delivery's new status: succeeded, failed, or pending again until `nextAttemptAt`. */
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
}

/**
 * Records attempts in one statement: the attempt log rows, and each delivery's new state, but
 * only while the lease is still the worker's own (a worker that overran its lease must not undo
 * the next worker's claim; its attempt is still logged).
 */
export async function recordAttempts(db: Queryable, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const col = <T>(f: (r: AttemptRecord) => T) => records.map(f);
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::timestamptz[])
         AS u(delivery_id, lease_token, attempt_number, started_at, duration_ms, url, outcome, status_code, error, status, next_attempt_at)
     ), updated AS (
       UPDATE delivery d
          SET status = i.status, next_attempt_at = i.next_attempt_at, lease_token = NULL,
              last_status_code = i.status_code, last_error = i.error, updated_at = now(),
              completed_at = CASE WHEN i.status IN ('succeeded', 'failed') THEN now() END
         FROM input i
        WHERE d.id = i.delivery_id AND d.lease_token = i.lease_token
       RETURNING d.id
     ), superseded AS (
       -- A worker that overran its lease: its attempt was logged as interrupted when the row was
       -- taken up again; the real outcome replaces that guess.
       DELETE FROM delivery_attempt a USING input i
        WHERE a.delivery_id = i.delivery_id AND a.attempt_number = i.attempt_number AND a.error = $12
     )
     INSERT INTO delivery_attempt (delivery_id, attempt_number, started_at, duration_ms, url, outcome, status_code, error, next_attempt_at)
     SELECT delivery_id, attempt_number, started_at, duration_ms, url, outcome, status_code, error, next_attempt_at FROM input`,
    [
      col((r) => r.deliveryId),
      col((r) => r.leaseToken),
      col((r) => r.attempt),
      col((r) => r.startedAt),
      col((r) => r.durationMs),
      col((r) => r.url),
      col((r) => r.outcome),
      col((r) => r.statusCode),
      col((r) => r.error),
      col((r) => r.status),
      col((r) => r.nextAttemptAt),
      INTERRUPTED_ATTEMPT_ERROR,
    ],
  );
}

/** Deletes up to `limit` deliveries (with their attempts) finished more than `days` ago; returns how many. */
export async function deleteFinishedBefore(db: Queryable, days: number, limit = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM delivery WHERE id IN (
       SELECT id FROM delivery WHERE completed_at < now() - make_interval(days => $1) ORDER BY completed_at LIMIT $2)`,
    [days, limit],
  );
  return rowCount ?? 0;
}

/**
 * When the next open delivery falls due (null when there is none), leaving out the channels
 * given (slow ones at their limit: the worker is woken when they have room).
 */
export async function nextDueAt(db: Queryable, exceptChannels: readonly string[] = []): Promise<Date | null> {
  const { rows } = await db.query<{ due: Date | null }>(
    `SELECT min(next_attempt_at) AS due FROM delivery WHERE status IN ('pending', 'sending') AND channel_id <> ALL ($1::text[])`,
    [exceptChannels],
  );
  return rows[0]?.due ?? null;
}

/** What redelivery copies from a delivery. */
export interface StoredDelivery {
  id: string;
  channelId: string;
  teamCode: string;
  notificationType: string;
  orderUuid: string | null;
  status: DeliveryStatus;
  body: Buffer;
  signature: string;
  secretVersion: number;
}

export async function findStoredDelivery(db: Queryable, id: string): Promise<StoredDelivery | null> {
  const { rows } = await db.query<{
    id: string;
    channel_id: string;
    team_code: string;
    notification_type: string;
    order_uuid: string | null;
    status: DeliveryStatus;
    body: Buffer;
    signature: string;
    secret_version: number;
  }>('SELECT id, channel_id, team_code, notification_type, order_uuid, status, body, signature, secret_version FROM delivery WHERE id = $1', [id]);
  const r = rows[0];
  return r
    ? {
        id: r.id,
        channelId: r.channel_id,
        teamCode: r.team_code,
        notificationType: r.notification_type,
        orderUuid: r.order_uuid,
        status: r.status,
        body: r.body,
        signature: r.signature,
        secretVersion: r.secret_version,
      }
    : null;
}

// --- back-office reads (Prisma) ---

const deliveryWithAttempts = {
  attempts: { orderBy: [{ attemptNumber: 'asc' }, { id: 'asc' }] },
} satisfies Prisma.DeliveryInclude;

export type DeliveryWithAttempts = Prisma.DeliveryGetPayload<{ include: typeof deliveryWithAttempts }>;

export async function findDeliveryWithAttempts(prisma: PrismaClient, id: string): Promise<DeliveryWithAttempts | null> {
  return prisma.delivery.findUnique({ where: { id }, include: deliveryWithAttempts });
}

/**
 * A page of the channel's delivery log, newest first. Keyset pagination on (created_at, id):
 * `after` is the last delivery of the previous page.
 */
export async function listDeliveries(
  prisma: PrismaClient,
  q: { channelId: string; status?: DeliveryStatus; notificationType?: string; orderUuid?: string; first: number; after?: { createdAt: Date; id: string } },
): Promise<DeliveryWithAttempts[]> {
  const where: Prisma.DeliveryWhereInput = {
    channelId: q.channelId,
    ...(q.status ? { status: q.status } : {}),
    ...(q.notificationType ? { notificationType: q.notificationType } : {}),
    ...(q.orderUuid ? { orderUuid: q.orderUuid } : {}),
    ...(q.after
      ? { OR: [{ createdAt: { lt: q.after.createdAt } }, { createdAt: q.after.createdAt, id: { lt: q.after.id } }] }
      : {}),
  };
  return prisma.delivery.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.first, include: deliveryWithAttempts });
}
