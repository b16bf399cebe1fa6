/**
 * Whether an error says the database cannot be used right now (out of reach, going away, no
 * connection to be had in time) rather than that a statement or the code is wrong: an outage to
 * wait out and answer as `unavailable`, not a bug to count or report as unexpected.
 */

/** SQLSTATE classes and codes of a database out of reach or going away (08: connection exception; 57P01-57P03: shutdown, cannot connect now). */
const UNREACHABLE_SQLSTATE = /^(08|57P0[123])/;
/** Socket errors of a connection that could not be made or was cut. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's own words for a connection lost or never handed out (pg-pool's connection time-out). */
const PG_MESSAGES = /^Connection terminated|timeout exceeded when trying to connect/;
/** Prisma's codes for a database it cannot reach or whose connection it lost (P1001, P1002, P1017) or a pool that gave none in time (P2024). */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);

export function isDatabaseUnreachable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_SQLSTATE.test(code) || SOCKET_ERRORS.has(code) || PRISMA_CODES.has(code))) return true;
  if (PG_MESSAGES.test(err.message)) return true;
  // A refused connection on both 127.0.0.1 and ::1 is one AggregateError; a driver adapter's error wraps pg's.
  if (err instanceof AggregateError && err.errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  return isDatabaseUnreachable((err as { cause?: unknown }).cause, depth + 1);
}
