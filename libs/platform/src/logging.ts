import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout; one logger per service, children per component. */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Never log credentials, even by accident in an error's context.
    redact: { paths: ['req.headers.authorization', '*.token', '*.secret', 'authorization'], censor: '[redacted]' },
  });
}
