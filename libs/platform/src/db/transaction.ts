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
