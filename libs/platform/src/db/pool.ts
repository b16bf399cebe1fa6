import pg from 'pg';
import type { Logger } from '../logging';

/**
 * A pg pool whose idle connections may fail without ending the process: when the server closes
 * one (a restart, a fail-over, `pg_terminate_backend`), pg emits 'error' on the pool, and an
 * 'error' event nobody listens to is thrown. The pool drops that connection and opens a new one
 * when needed; the failure is logged. (A connection checked out at the time reports to its own
 * listener: see inPgTransaction.)
 */
export function openPool(config: pg.PoolConfig, logger: Pick<Logger, 'warn'> | undefined, label: string): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', (err) => logger?.warn({ err, pool: label }, 'idle database connection failed'));
  return pool;
}
