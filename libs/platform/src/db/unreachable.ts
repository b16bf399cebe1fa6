import { types } from 'node:util';

/**
 * Whether an error says the database cannot serve right now (out of reach, going away, out of
 * connections, no connection to be had in time) rather than that a statement or the code is
 * wrong: an outage to wait out and answer as `unavailable`, not a bug to count or report as
 * unexpected.
 */

/**
 * SQLSTATEs of a database out of reach, going away or out of connections: the connection
 * exceptions (08000-08007; not 08P01, a protocol violation: our bug), shutdown and cannot connect
 * now (57P01-57P03), too many connections (53300).
 */
const UNAVAILABLE_SQLSTATE = /^(0800[0-7]|57P0[123]|53300)$/;
/** Socket errors of a connection that could not be made or was cut. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's own words for a connection lost or never handed out (pg-pool's connection time-out). */
const PG_MESSAGES = /^Connection terminated|timeout exceeded when trying to connect/;
/**
 * Prisma's codes for a database it cannot reach or whose connection it lost (P1001, P1002, P1008,
 * P1017), a pool that gave none in time (P2024), too many connections (P2037).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** How Prisma's driver adapter words a database error it has no code of its own for ("Database error. Code: `57P01`"). */
const PRISMA_WRAPPED_SQLSTATE = /Code: `(0800[0-7]|57P0[123]|53300)`/;
/**
 * Prisma's interactive transaction that could not get a connection in time (P2028, a code Prisma
 * also gives transactions our code misused, so only these words count).
 */
const PRISMA_NO_TRANSACTION = /Unable to start a transaction in the given time/;
/**
 * The kinds Prisma's pg adapter gives a database out of reach or a connection lost, carried by the
 * request error of a raw query (P2010) as `meta.driverAdapterError.cause.kind`.
 */
const ADAPTER_UNREACHABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

export function isDatabaseUnreachable(err: unknown): boolean {
  return anyInChain(err, (e) => {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || SOCKET_ERRORS.has(code) || PRISMA_CODES.has(code))) return true;
    if (ADAPTER_UNREACHABLE_KINDS.has(adapterErrorKind(e) ?? '')) return true;
    return PG_MESSAGES.test(e.message) || PRISMA_WRAPPED_SQLSTATE.test(e.message) || PRISMA_NO_TRANSACTION.test(e.message);
  });
}

/** The kind of the driver adapter's error a Prisma error carries (or a DriverAdapterError is), if any. */
function adapterErrorKind(e: Error): string | undefined {
  type WithKind = { cause?: { kind?: unknown } };
  const carried = (e as { meta?: { driverAdapterError?: WithKind } }).meta?.driverAdapterError;
  const kind = (carried ?? (e.name === 'DriverAdapterError' ? (e as WithKind) : undefined))?.cause?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

/**
 * SQLSTATEs of a database too busy to finish a statement now: a statement or lock time-out
 * (57014, 55P03), a serialization failure or deadlock the service's own retries did not get past
 * (40001, 40P01). Worth trying again later, like an outage; not a bug in the request.
 */
const BUSY_SQLSTATE = new Set(['57014', '55P03', '40001', '40P01']);

/** Whether the database could not serve the request now: out of reach (isDatabaseUnreachable) or too busy. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return isDatabaseUnreachable(err) || anyInChain(err, (e) => BUSY_SQLSTATE.has((e as { code?: unknown }).code as string));
}

/**
 * Whether `test` holds for the error or one it carries: its `cause` (a driver adapter's error
 * wraps pg's), or those of an AggregateError (a refused connection on both 127.0.0.1 and ::1).
 */
function anyInChain(err: unknown, test: (e: Error) => boolean, depth = 0): boolean {
  // Errors of Node's own modules come from another realm under a vm (jest runs tests in one):
  // `instanceof Error` is false for them there.
  if (!(err instanceof Error || types.isNativeError(err)) || depth > 4) return false;
  if (test(err)) return true;
  const carried = (err as { errors?: unknown }).errors;
  if (err.name === 'AggregateError' && Array.isArray(carried) && carried.some((e) => anyInChain(e, test, depth + 1))) return true;
  return anyInChain((err as { cause?: unknown }).cause, test, depth + 1);
}
