import type { Queryable } from './db';

/** A channel as the accounts events describe it. */
export interface ChannelRow {
  channelId: string;
  teamCode: string;
  channelCode: string;
  active: boolean;
  standard: boolean;
}

/** An order as the orders events describe it (timestamps as Dates). */
export interface OrderViewRow {
  orderUuid: string;
  teamCode: string;
  channelId: string;
  channelCode: string;
  origin: string;
  orderNumber: string;
  status: string;
  fulfillableStatus: string;
  createdAt: Date;
  updatedAt: Date;
  confirmedAt: Date | null;
}

export async function upsertTeam(db: Queryable, team: { teamCode: string; active: boolean }): Promise<void> {
  await db.query(
    `INSERT INTO team (team_code, active, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (team_code) DO UPDATE SET active = EXCLUDED.active, updated_at = now()`,
    [team.teamCode, team.active],
  );
}

export async function findTeamActive(db: Queryable, teamCode: string): Promise<boolean | null> {
  const { rows } = await db.query<{ active: boolean }>('SELECT active FROM team WHERE team_code = $1', [teamCode]);
  return rows[0]?.active ?? null;
}

/** A channel never moves to another team: an event that says otherwise changes nothing (as in the orders and stock read models). */
export async function upsertChannel(db: Queryable, c: ChannelRow): Promise<void> {
  await db.query(
    `INSERT INTO channel (channel_id, team_code, channel_code, active, standard, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (channel_id) DO UPDATE SET channel_code = EXCLUDED.channel_code,
       active = EXCLUDED.active, standard = EXCLUDED.standard, updated_at = now()
     WHERE channel.team_code = EXCLUDED.team_code`,
    [c.channelId, c.teamCode, c.channelCode, c.active, c.standard],
  );
}

export async function findChannel(db: Queryable, channelId: string): Promise<ChannelRow | null> {
  const { rows } = await db.query<{ channel_id: string; team_code: string; channel_code: string; active: boolean; standard: boolean }>(
    'SELECT channel_id, team_code, channel_code, active, standard FROM channel WHERE channel_id = $1',
    [channelId],
  );
  const r = rows[0];
  return r ? { channelId: r.channel_id, teamCode: r.team_code, channelCode: r.channel_code, active: r.active, standard: r.standard } : null;
}

/**
 * Keeps the newest state of an order: an event whose `updatedAt` is older than what is stored
 * changes nothing (events of one order arrive in order; this guards replays across restarts).
 */
export async function upsertOrderView(db: Queryable, o: OrderViewRow): Promise<void> {
  await db.query(
    `INSERT INTO order_view (order_uuid, team_code, channel_id, channel_code, origin, order_number, status, fulfillable_status, created_at, updated_at, confirmed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (order_uuid) DO UPDATE SET team_code = EXCLUDED.team_code, channel_id = EXCLUDED.channel_id,
       channel_code = EXCLUDED.channel_code, origin = EXCLUDED.origin, order_number = EXCLUDED.order_number,
       status = EXCLUDED.status, fulfillable_status = EXCLUDED.fulfillable_status, created_at = EXCLUDED.created_at,
       updated_at = EXCLUDED.updated_at, confirmed_at = EXCLUDED.confirmed_at
     WHERE order_view.updated_at <= EXCLUDED.updated_at`,
    [o.orderUuid, o.teamCode, o.channelId, o.channelCode, o.origin, o.orderNumber, o.status, o.fulfillableStatus, o.createdAt, o.updatedAt, o.confirmedAt],
  );
}

export async function findOrderView(db: Queryable, orderUuid: string): Promise<OrderViewRow | null> {
  const { rows } = await db.query<{
    order_uuid: string;
    team_code: string;
    channel_id: string;
    channel_code: string;
    origin: string;
    order_number: string;
    status: string;
    fulfillable_status: string;
    created_at: Date;
    updated_at: Date;
    confirmed_at: Date | null;
  }>('SELECT * FROM order_view WHERE order_uuid = $1', [orderUuid]);
  const r = rows[0];
  return r
    ? {
        orderUuid: r.order_uuid,
        teamCode: r.team_code,
        channelId: r.channel_id,
        channelCode: r.channel_code,
        origin: r.origin,
        orderNumber: r.order_number,
        status: r.status,
        fulfillableStatus: r.fulfillable_status,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        confirmedAt: r.confirmed_at,
      }
    : null;
}
