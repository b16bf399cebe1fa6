import type { Sql } from './order-repository';

export interface ClaimedTimer {
  orderUuid: string;
  kind: 'countdown' | 'schedule';
  dueAt: Date;
  attempts: number;
}

/**
 * Claims due timers for one worker: rows locked with FOR UPDATE SKIP LOCKED (two replicas never
 * take the same row), stamped with the worker and a lease. A worker that dies leaves its rows to
 * be claimed again once the lease runs out; nothing is lost.
 */
export async function claimDueTimers(db: Sql, workerId: string, leaseMs: number, limit: number): Promise<ClaimedTimer[]> {
  const { rows } = await db.query<{ order_uuid: string; kind: ClaimedTimer['kind']; due_at: Date; attempts: number }>(
    `WITH due AS (
       SELECT order_uuid FROM orders.order_timer
        WHERE due_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
        ORDER BY due_at LIMIT $3
        FOR UPDATE SKIP LOCKED)
     UPDATE orders.order_timer t
        SET claimed_by = $1, claimed_until = now() + make_interval(secs => $2::double precision / 1000), attempts = t.attempts + 1
       FROM due WHERE t.order_uuid = due.order_uuid
     RETURNING t.order_uuid::text AS order_uuid, t.kind, t.due_at, t.attempts`,
    [workerId, leaseMs, limit],
  );
  return rows.map((r) => ({ orderUuid: r.order_uuid, kind: r.kind, dueAt: r.due_at, attempts: r.attempts }));
}

/** The timer row as it is now (read under the order's lock), or null when it is gone. */
export async function currentTimer(db: Sql, orderUuid: string): Promise<{ kind: string; dueAt: Date; claimedBy: string | null } | null> {
  const { rows } = await db.query<{ kind: string; due_at: Date; claimed_by: string | null }>(
    `SELECT kind, due_at, claimed_by FROM orders.order_timer WHERE order_uuid = $1::uuid`,
    [orderUuid],
  );
  const r = rows[0];
  return r ? { kind: r.kind, dueAt: r.due_at, claimedBy: r.claimed_by } : null;
}

/** A failed attempt: released to be tried again after `retryInMs`, with the error kept. */
export async function releaseAfterFailure(
  db: Sql,
  orderUuid: string,
  workerId: string,
  retryInMs: number,
  error: string,
  /** false: the failure does not count toward the attempts (the claim's count is given back). */
  counted = true,
): Promise<void> {
  await db.query(
    `UPDATE orders.order_timer SET claimed_by = NULL, claimed_until = now() + make_interval(secs => $3::double precision / 1000), last_error = $4,
            attempts = CASE WHEN $5::boolean THEN attempts ELSE greatest(attempts - 1, 0) END
      WHERE order_uuid = $1::uuid AND claimed_by = $2`,
    [orderUuid, workerId, retryInMs, error.slice(0, 2000), counted],
  );
}
