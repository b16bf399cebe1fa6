import type { Logger } from '../logging';

/** One line a `recordingLogger` was given. */
export interface RecordedLine {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  obj: Record<string, unknown>;
  msg: string;
}

/**
 * A logger that keeps what it is given, for tests that check what code logs (its children log
 * into the same list). Only the `(object, message)` form the project uses is recorded.
 */
export function recordingLogger(): { logger: Logger; lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const logger: Record<string, unknown> = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
    logger[level] = (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg });
  }
  logger.child = () => logger;
  return { logger: logger as unknown as Logger, lines };
}
