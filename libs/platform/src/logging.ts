import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Members some libraries hang on their errors that are not worth a log line's kilobytes: pg-pool
 * puts the whole pg Client (connection parameters, type parsers, queues: ~7 KB) on the error of
 * an idle connection the server dropped, which during a database restart is every connection.
 */
const BULKY_ERROR_MEMBERS = ['client'] as const;

/** pino's error serializer (type, message, stack, code, cause...) without the bulky members. */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (out && typeof out === 'object') for (const member of BULKY_ERROR_MEMBERS) delete (out as Record<string, unknown>)[member];
  return out;
}

/** JSON logs on stdout; one logger per service, children per component. */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    // Never log credentials, even by accident in an error's context.
    redact: { paths: ['req.headers.authorization', '*.token', '*.secret', 'authorization'], censor: '[redacted]' },
  });
}
