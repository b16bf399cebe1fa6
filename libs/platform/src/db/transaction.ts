import type pg from 'pg';

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it returns, ROLLBACK when it
 * throws (the error is rethrown). A connection whose ROLLBACK failed is in an unknown state: it is
 * closed instead of going back to the pool.
 */
export async function inPgTransaction<R>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Postgres 40001 (serialization failure) or 40P01 (deadlock): the transaction may simply run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}
