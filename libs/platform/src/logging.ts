import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Members some libraries hang on their errors that are not worth a log line's kilobytes: pg-pool
 * puts the whole pg Client (connection parameters, type parsers, queues: ~7 KB) on the error of
 * an idle connection the server dropped, which during a database restart is every connection.
 */
const BULKY_ERROR_MEMBERS = ['client'] as const;

/**
 * pino's error serializer (type, message, stack, code, cause...) without the bulky members, in the
 * errors an AggregateError carries too (a connection refused on both 127.0.0.1 and ::1 is one).
 */
export function serializeError(err: unknown): unknown {
  return withoutBulkyMembers(pino.stdSerializers.err(err as Error) as unknown);
}

function withoutBulkyMembers(serialized: unknown): unknown {
  if (!serialized || typeof serialized !== 'object') return serialized;
  const out = serialized as Record<string, unknown>;
  for (const member of BULKY_ERROR_MEMBERS) delete out[member];
  if (Array.isArray(out.aggregateErrors)) out.aggregateErrors.forEach(withoutBulkyMembers);
  return out;
}

/**
 * Members never written to a log, even by accident in an error's context: credentials (tokens,
 * secrets, passwords, JWTs, signatures) and request headers that carry them, at the top of a line
 * and one level down (an error's or a request's own members).
 */
export const REDACTED_PATHS = [
  ...['token', 'secret', 'password', 'jwt', 'signature', 'authorization', 'cookie'].flatMap((member) => [member, `*.${member}`]),
  ...['authorization', 'cookie'].flatMap((header) => [`headers.${header}`, `*.headers.${header}`]),
];

/** JSON logs on stdout; one logger per service, children per component. */
export function createLogger(
  service: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Lets one line of a kind through per `intervalMs` and counts the ones held back, which the next
 * line that goes out reports (`suppressed`): during an outage every request fails the same way,
 * and one line every few seconds says as much as thousands.
 */
export class LogThrottle {
  private next = 0;
  private held = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Null when this line is held back; else how many were held back since the last one. */
  take(): { suppressed: number } | null {
    const at = this.now();
    if (at < this.next) {
      this.held++;
      return null;
    }
    this.next = at + this.intervalMs;
    const suppressed = this.held;
    this.held = 0;
    return { suppressed };
  }
}
