import pg from 'pg';
import type { Logger } from '../logging';

/**
 * What every connection to Postgres is opened with, unless its pool says otherwise:
 * - TCP keep-alive after 10 s idle: a server that vanished without closing its connections (a
 *   hard fail-over, a partitioned node) is noticed by the connections waiting on it, the LISTEN
 *   ones included, instead of after the kernel's two hours;
 * - at most 10 s to get a connection (opening one, or waiting for a free one): a server that does
 *   not answer is an outage the caller answers (`unavailable`), not a request that hangs;
 * - a transaction left idle for a minute is ended by the server (`idle_in_transaction_session_timeout`):
 *   a process that stopped in the middle of a change (frozen, or cut off by the network, which the
 *   server's own keep-alive notices only after two hours) no longer keeps its row locks (a hold's
 *   products, an order's row, a relay's publisher lock) from every other replica. Its change rolls
 *   back; the client learns it at its next statement. No change waits that long between two
 *   statements, except where it waits on another service inside its transaction: such a pool sets
 *   its own bound above that wait (orders: {@link idleInTransactionBound}).
 */
export const CONNECTION_DEFAULTS = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  connectionTimeoutMillis: 10_000,
  idle_in_transaction_session_timeout: 60_000,
} as const satisfies pg.PoolConfig;

/**
 * The idle-in-transaction bound of a pool whose transactions wait on calls to another service
 * (each at most `callTimeoutMs`): room for `calls` of them back to back (a step and the
 * compensations after it), never below the default.
 */
export function idleInTransactionBound(callTimeoutMs: number, calls: number): number {
  return Math.max(CONNECTION_DEFAULTS.idle_in_transaction_session_timeout, calls * callTimeoutMs);
}

/**
 * A pg pool (with {@link CONNECTION_DEFAULTS}) whose idle connections may fail without ending the process: when the server closes
 * one (a restart, a fail-over, `pg_terminate_backend`), pg emits 'error' on the pool, and an
 * 'error' event nobody listens to is thrown. The pool drops that connection and opens a new one
 * when needed; the failure is logged. (A connection checked out at the time reports to its own
 * listener: see withClient.)
 */
export function openPool(config: pg.PoolConfig, logger: Pick<Logger, 'warn'> | undefined, label: string): pg.Pool {
  const pool = new pg.Pool({ ...CONNECTION_DEFAULTS, ...config });
  pool.on('error', (err) => logger?.warn({ err, pool: label }, 'idle database connection failed'));
  return pool;
}

/**
 * Runs `work` on a connection checked out of `pool`, then gives it back, or closes it when it is
 * no longer fit for another user: the server dropped it meanwhile, or `work` called `discard`
 * (a ROLLBACK that failed leaves a transaction in an unknown state). A dropped connection is
 * reported by pg as an 'error' event on the checked-out client, which unlistened would end the
 * process: it is listened to here for the whole checkout, whatever `work` waits on.
 */
export async function withClient<R>(pool: pg.Pool, work: (client: pg.PoolClient, discard: (reason: Error) => void) => Promise<R>): Promise<R> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const discard = (reason: Error) => {
    broken ??= reason;
  };
  client.on('error', discard);
  try {
    return await work(client, discard);
  } finally {
    client.removeListener('error', discard);
    client.release(broken);
  }
}
