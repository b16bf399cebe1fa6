import { randomUUID } from 'node:crypto';
import type { Queryable } from './db';

/**
 * Adds a product's stock change to the team's open window, opening one (due `windowSeconds`
 * from now) when there is none. One statement: concurrent changes of a team meet in the partial
 * unique index on its open window; a window being closed no longer counts as open, so a change
 * arriving meanwhile opens the next window and is never lost with the closing one.
 */
export async function addStockChange(
  db: Queryable,
  change: { teamCode: string; productUuid: string; sku: string | null; changedAt: Date; windowSeconds: number },
): Promise<void> {
  await db.query(
    `WITH w AS (
       INSERT INTO stock_window (id, team_code, status, opened_at, due_at, last_changed_at)
       VALUES ($1, $2, 'open', now(), now() + make_interval(secs => $3), $4)
       ON CONFLICT (team_code) WHERE status = 'open'
       DO UPDATE SET last_changed_at = GREATEST(stock_window.last_changed_at, EXCLUDED.last_changed_at)
       RETURNING id
     )
     INSERT INTO stock_window_product (window_id, product_uuid, sku, changed_at)
     SELECT w.id, $5, $6, $4 FROM w
     ON CONFLICT (window_id, product_uuid) DO UPDATE
       SET sku = CASE WHEN EXCLUDED.changed_at >= stock_window_product.changed_at THEN EXCLUDED.sku ELSE stock_window_product.sku END,
           changed_at = GREATEST(stock_window_product.changed_at, EXCLUDED.changed_at)`,
    [randomUUID(), change.teamCode, change.windowSeconds, change.changedAt, change.productUuid, change.sku],
  );
}

/** A window claimed for closing. */
export interface ClaimedWindow {
  id: string;
  teamCode: string;
  leaseToken: string;
  lastChangedAt: Date;
  products: { productUuid: string; sku: string | null }[];
}

/**
 * Claims due windows for closing (and closing ones whose lease ran out), with their products.
 * The window stops being the team's open one at once. Only a team's oldest window is claimed: a
 * later one waits while an older one is still being closed (its figures could not be read yet),
 * or both would be sent at once.
 */
export async function claimDueWindows(db: Queryable, opts: { limit: number; leaseSeconds: number }): Promise<ClaimedWindow[]> {
  const token = randomUUID();
  const { rows } = await db.query<{ id: string; team_code: string; last_changed_at: Date }>(
    `WITH due AS (
       SELECT id FROM stock_window w
        WHERE due_at <= now() AND (status = 'open' OR lease_until <= now())
          AND NOT EXISTS (SELECT 1 FROM stock_window older WHERE older.team_code = w.team_code AND older.opened_at < w.opened_at)
        ORDER BY due_at
        LIMIT $1
        FOR UPDATE SKIP LOCKED
     )
     UPDATE stock_window w
        SET status = 'closing', lease_token = $2, lease_until = now() + make_interval(secs => $3), close_attempts = w.close_attempts + 1
       FROM due WHERE w.id = due.id
     RETURNING w.id, w.team_code, w.last_changed_at`,
    [opts.limit, token, opts.leaseSeconds],
  );
  if (rows.length === 0) return [];
  const products = await db.query<{ window_id: string; product_uuid: string; sku: string | null }>(
    'SELECT window_id, product_uuid, sku FROM stock_window_product WHERE window_id = ANY($1::uuid[]) ORDER BY product_uuid',
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    id: r.id,
    teamCode: r.team_code,
    leaseToken: token,
    lastChangedAt: r.last_changed_at,
    products: products.rows.filter((p) => p.window_id === r.id).map((p) => ({ productUuid: p.product_uuid, sku: p.sku })),
  }));
}

/**
 * Ends a closed window (and its products) if the lease is still ours; false when it is not. The
 * team's next window falls due a whole window after this one is sent, at the earliest: a window
 * closed late (its figures could not be read for a while) must not be followed at once by the
 * next (section 6: at most one per channel every ten minutes).
 */
export async function deleteClosedWindow(db: Queryable, id: string, leaseToken: string, windowSeconds: number): Promise<boolean> {
  const { rows } = await db.query<{ team_code: string }>(
    `DELETE FROM stock_window WHERE id = $1 AND lease_token = $2 AND status = 'closing' RETURNING team_code`,
    [id, leaseToken],
  );
  if (rows.length === 0) return false;
  await db.query(
    `UPDATE stock_window SET due_at = GREATEST(due_at, now() + make_interval(secs => $2)) WHERE team_code = $1 AND status = 'open'`,
    [rows[0]!.team_code, windowSeconds],
  );
  return true;
}

/** Remembers why closing failed; the window is tried again when its lease runs out. */
export async function noteWindowFailure(db: Queryable, id: string, leaseToken: string, error: string): Promise<void> {
  await db.query('UPDATE stock_window SET last_error = $3 WHERE id = $1 AND lease_token = $2', [id, leaseToken, error.slice(0, 2000)]);
}

/** When the next window falls due (null when there is none). */
export async function nextWindowDueAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ due: Date | null }>(
    `SELECT min(CASE WHEN status = 'open' THEN due_at ELSE GREATEST(due_at, lease_until) END) AS due FROM stock_window`,
  );
  return rows[0]?.due ?? null;
}
