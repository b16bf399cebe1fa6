import { Prisma, type PrismaClient } from '../generated/prisma/client';
import type { ApiTokenInfo, Channel, ChannelTokenFacts, Team } from '../domain/model';

/**
 * The only code that talks to Prisma. Every function takes the client to use, so a use case passes
 * its transaction. Raw SQL names the schema `accounts` explicitly (Prisma qualifies its own
 * queries from `@@schema`; raw queries run with the connection's default search_path).
 */
export type Db = PrismaClient | Prisma.TransactionClient;

const liveTokenInclude = {
  apiTokens: {
    where: { revokedAt: null },
    select: { id: true, channelId: true, prefix: true, createdAt: true },
    take: 1,
  },
} as const;

type ChannelRow = Omit<Channel, 'apiToken'> & { apiTokens: ApiTokenInfo[] };

function toChannel({ apiTokens, ...row }: ChannelRow): Channel {
  return { ...row, apiToken: apiTokens[0] ?? null };
}

/** True for a unique-constraint violation (a duplicate team code, channel code or token hash). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

export function findTeam(db: Db, code: string): Promise<Team | null> {
  return db.team.findUnique({ where: { code } });
}

/**
 * Reads the team and locks its row for the rest of the transaction, so concurrent changes apply
 * one after the other and each event carries the state its own change produced.
 */
export async function lockTeam(db: Db, code: string): Promise<Team | null> {
  const rows = await db.$queryRaw<{ code: string; name: string; active: boolean; created_at: Date; updated_at: Date }[]>`
    SELECT code, name, active, created_at, updated_at FROM accounts.team WHERE code = ${code} FOR UPDATE`;
  const row = rows[0];
  return row
    ? { code: row.code, name: row.name, active: row.active, createdAt: row.created_at, updatedAt: row.updated_at }
    : null;
}

export function insertTeam(db: Db, team: { code: string; name: string }): Promise<Team> {
  return db.team.create({ data: team });
}

export function updateTeam(db: Db, code: string, change: { name?: string; active?: boolean }): Promise<Team> {
  return db.team.update({ where: { code }, data: change });
}

export async function findChannel(db: Db, id: string): Promise<Channel | null> {
  const row = await db.channel.findUnique({ where: { id }, include: liveTokenInclude });
  return row ? toChannel(row) : null;
}

/** The team's channels, the Standard channel first, then by code. */
export async function listChannels(db: Db, teamCode: string): Promise<Channel[]> {
  const rows = await db.channel.findMany({
    where: { teamCode },
    include: liveTokenInclude,
    orderBy: [{ standard: 'desc' }, { code: 'asc' }],
  });
  return rows.map(toChannel);
}

export async function insertChannel(
  db: Db,
  channel: { id: string; teamCode: string; code: string; name: string; standard: boolean },
): Promise<Channel> {
  const row = await db.channel.create({ data: channel, include: liveTokenInclude });
  return toChannel(row);
}

export async function updateChannel(db: Db, id: string, change: { name?: string; active?: boolean }): Promise<Channel> {
  const row = await db.channel.update({ where: { id }, data: change, include: liveTokenInclude });
  return toChannel(row);
}

/**
 * Locks the channel row for the rest of the transaction, so token changes on one channel run one
 * after the other (two concurrent issues: the second waits, then revokes the first's token).
 */
export async function lockChannel(db: Db, id: string): Promise<{ id: string; teamCode: string; standard: boolean } | null> {
  const rows = await db.$queryRaw<{ id: string; team_code: string; standard: boolean }[]>`
    SELECT id, team_code, standard FROM accounts.channel WHERE id = ${id} FOR UPDATE`;
  const row = rows[0];
  return row ? { id: row.id, teamCode: row.team_code, standard: row.standard } : null;
}

/** Revokes the channel's live token, if any; returns its id. */
export async function revokeLiveToken(db: Db, channelId: string, at: Date): Promise<string | null> {
  const revoked = await db.apiToken.updateManyAndReturn({
    where: { channelId, revokedAt: null },
    data: { revokedAt: at },
    select: { id: true },
  });
  return revoked[0]?.id ?? null;
}

export function insertToken(
  db: Db,
  token: { id: string; channelId: string; tokenSha256: string; prefix: string; createdAt: Date },
): Promise<ApiTokenInfo> {
  return db.apiToken.create({ data: token, select: { id: true, channelId: true, prefix: true, createdAt: true } });
}

interface TokenCheckRow {
  channel_id: string;
  team_code: string;
  channel_active: boolean;
  channel_standard: boolean;
  team_active: boolean;
  token_id: string | null;
  token_channel_id: string | null;
  token_created_at: Date | null;
  token_channel_active: boolean | null;
  token_channel_standard: boolean | null;
}

/**
 * Everything the edge needs to authenticate one request, in one round trip of primary-key and
 * unique-index lookups: the live token by its unique hash (materialised first, so the plan
 * never walks a team's channels), the path channel and its team by primary key. The token is
 * joined only when its channel is in the path channel's team: another team's token is no token.
 */
export async function channelTokenFacts(db: Db, channelId: string, tokenSha256: string | null): Promise<ChannelTokenFacts> {
  const rows = await db.$queryRaw<TokenCheckRow[]>`
    WITH live_token AS MATERIALIZED (
      SELECT tok.id::text AS token_id, tok.channel_id AS token_channel_id, tok.created_at AS token_created_at,
             tc.team_code AS token_team_code, tc.active AS token_channel_active, tc.standard AS token_channel_standard
        FROM accounts.api_token tok
        JOIN accounts.channel tc ON tc.id = tok.channel_id
       WHERE tok.token_sha256 = ${tokenSha256} AND tok.revoked_at IS NULL
    )
    SELECT c.id AS channel_id, c.team_code, c.active AS channel_active, c.standard AS channel_standard,
           t.active AS team_active,
           lt.token_id, lt.token_channel_id, lt.token_created_at, lt.token_channel_active, lt.token_channel_standard
      FROM accounts.channel c
      JOIN accounts.team t ON t.code = c.team_code
      LEFT JOIN live_token lt ON lt.token_team_code = c.team_code
     WHERE c.id = ${channelId}`;
  const row = rows[0];
  if (!row) return { channelExists: false, channel: null, token: null, teamActive: false };
  return {
    channelExists: true,
    channel: { id: row.channel_id, teamCode: row.team_code, active: row.channel_active, standard: row.channel_standard },
    token:
      row.token_id && row.token_channel_id && row.token_created_at
        ? {
            id: row.token_id,
            channelId: row.token_channel_id,
            teamCode: row.team_code,
            createdAt: row.token_created_at,
            channelActive: row.token_channel_active === true,
            channelStandard: row.token_channel_standard === true,
          }
        : null,
    teamActive: row.team_active,
  };
}
