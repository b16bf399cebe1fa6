import type { SealedSecret } from '../domain/secrets';
import type { PrismaClient } from '../generated/prisma/client';
import type { Queryable } from './db';

/** A channel's registration as the back-office sees it (never the secret). */
export interface EndpointInfo {
  channelId: string;
  teamCode: string;
  channelCode: string;
  url: string | null;
  secretVersion: number;
  secretCreatedAt: Date;
  registeredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A registration with its sealed secret, locked for queueing (rotation waits for the queueing to commit). */
export interface QueueingEndpoint {
  channelId: string;
  teamCode: string;
  channelCode: string;
  url: string | null;
  secret: SealedSecret;
  secretVersion: number;
  /** From the channel read model; null when its events have not arrived. */
  channel: { active: boolean; standard: boolean } | null;
}

interface Returned {
  url: string | null;
  secret_sealed: string;
  secret_key_id: string;
  secret_version: number;
}

/**
 * Registers (or replaces) the channel's URL in one statement. On the first registration the new
 * sealed secret is stored; afterwards the stored secret is kept and returned, so registering
 * again gives the same secret, however many registrations race.
 */
export async function registerUrl(
  prisma: PrismaClient,
  e: { channelId: string; teamCode: string; channelCode: string; url: string; newSecret: SealedSecret },
): Promise<{ secret: SealedSecret; secretVersion: number }> {
  const rows = await prisma.$queryRaw<Returned[]>`
    INSERT INTO webhooks.endpoint (channel_id, team_code, channel_code, url, secret_sealed, secret_key_id, registered_at)
    VALUES (${e.channelId}, ${e.teamCode}, ${e.channelCode}, ${e.url}, ${e.newSecret.sealed}, ${e.newSecret.keyId}, now())
    ON CONFLICT (channel_id) DO UPDATE SET url = EXCLUDED.url, registered_at = now(), updated_at = now()
    RETURNING url, secret_sealed, secret_key_id, secret_version`;
  const row = rows[0]!;
  return { secret: { sealed: row.secret_sealed, keyId: row.secret_key_id }, secretVersion: row.secret_version };
}

/**
 * Replaces the channel's secret (creating the registration without a URL if there is none).
 * The row lock it takes makes queueing that started before wait, so nothing queued after the
 * rotation commits is signed with the old secret.
 */
export async function replaceSecret(
  prisma: PrismaClient,
  e: { channelId: string; teamCode: string; channelCode: string; newSecret: SealedSecret },
): Promise<{ url: string | null; secretVersion: number }> {
  const rows = await prisma.$queryRaw<Returned[]>`
    INSERT INTO webhooks.endpoint (channel_id, team_code, channel_code, url, secret_sealed, secret_key_id)
    VALUES (${e.channelId}, ${e.teamCode}, ${e.channelCode}, NULL, ${e.newSecret.sealed}, ${e.newSecret.keyId})
    ON CONFLICT (channel_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, secret_key_id = EXCLUDED.secret_key_id,
      secret_version = endpoint.secret_version + 1, secret_created_at = now(), updated_at = now()
    RETURNING url, secret_sealed, secret_key_id, secret_version`;
  const row = rows[0]!;
  return { url: row.url, secretVersion: row.secret_version };
}

export async function findEndpoint(prisma: PrismaClient, channelId: string): Promise<EndpointInfo | null> {
  return prisma.endpoint.findUnique({
    where: { channelId },
    select: {
      channelId: true,
      teamCode: true,
      channelCode: true,
      url: true,
      secretVersion: true,
      secretCreatedAt: true,
      registeredAt: true,
      createdAt: true,
      updatedAt: true,
    },
  });
}

interface QueueingRow {
  channel_id: string;
  team_code: string;
  channel_code: string;
  url: string | null;
  secret_sealed: string;
  secret_key_id: string;
  secret_version: number;
  active: boolean | null;
  standard: boolean | null;
}

const QUEUEING_SELECT = `
  SELECT e.channel_id, e.team_code, e.channel_code, e.url, e.secret_sealed, e.secret_key_id, e.secret_version, c.active, c.standard
    FROM endpoint e LEFT JOIN channel c ON c.channel_id = e.channel_id`;

function toQueueing(r: QueueingRow): QueueingEndpoint {
  return {
    channelId: r.channel_id,
    teamCode: r.team_code,
    channelCode: r.channel_code,
    url: r.url,
    secret: { sealed: r.secret_sealed, keyId: r.secret_key_id },
    secretVersion: r.secret_version,
    channel: r.active === null || r.standard === null ? null : { active: r.active, standard: r.standard },
  };
}

/** The channel's registration, share-locked until the queueing transaction ends. */
export async function endpointForQueueing(tx: Queryable, channelId: string): Promise<QueueingEndpoint | null> {
  const { rows } = await tx.query<QueueingRow>(`${QUEUEING_SELECT} WHERE e.channel_id = $1 FOR SHARE OF e`, [channelId]);
  return rows[0] ? toQueueing(rows[0]) : null;
}

/** The channel's registration without locking it (the event path's cache; its statement checks the version). */
export async function endpointOf(db: Queryable, channelId: string): Promise<QueueingEndpoint | null> {
  const { rows } = await db.query<QueueingRow>(`${QUEUEING_SELECT} WHERE e.channel_id = $1`, [channelId]);
  return rows[0] ? toQueueing(rows[0]) : null;
}

/** Every registration of the team with a URL, share-locked, by channel id. */
export async function teamEndpointsForQueueing(tx: Queryable, teamCode: string): Promise<QueueingEndpoint[]> {
  const { rows } = await tx.query<QueueingRow>(
    `${QUEUEING_SELECT} WHERE e.team_code = $1 AND e.url IS NOT NULL ORDER BY e.channel_id FOR SHARE OF e`,
    [teamCode],
  );
  return rows.map(toQueueing);
}

/**
 * Up to `limit` registrations whose secret a key other than `currentKeyId` sealed, in channel
 * order after `afterChannelId` (a re-seal walks them in pages).
 */
export async function secretsSealedWithOtherKeys(
  sql: Queryable,
  currentKeyId: string,
  afterChannelId: string | null,
  limit: number,
): Promise<{ channelId: string; secret: SealedSecret }[]> {
  const { rows } = await sql.query<{ channel_id: string; secret_sealed: string; secret_key_id: string }>(
    `SELECT channel_id, secret_sealed, secret_key_id FROM webhooks.endpoint
      WHERE secret_key_id <> $1 AND ($2::text IS NULL OR channel_id > $2) ORDER BY channel_id LIMIT $3`,
    [currentKeyId, afterChannelId, limit],
  );
  return rows.map((r) => ({ channelId: r.channel_id, secret: { sealed: r.secret_sealed, keyId: r.secret_key_id } }));
}

/**
 * Stores a secret sealed again (the same secret, another key) while the row still holds exactly
 * `was`: a rotation or registration that committed meanwhile keeps its own. Whether it was stored.
 */
export async function replaceSealedSecret(sql: Queryable, channelId: string, was: SealedSecret, now: SealedSecret): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE webhooks.endpoint SET secret_sealed = $4, secret_key_id = $5
      WHERE channel_id = $1 AND secret_sealed = $2 AND secret_key_id = $3`,
    [channelId, was.sealed, was.keyId, now.sealed, now.keyId],
  );
  return rowCount === 1;
}
