import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { Logger } from '../logging';

export type ReadinessCheck = () => Promise<void>;

interface Closer {
  name: string;
  close: () => Promise<void>;
}

/**
 * Start-up and shutdown of one service process. Closers run in reverse order of registration:
 * register the database first and the HTTP server last, so the server stops taking requests and
 * finishes in-flight ones, then consumers stop, then the producer flushes, then pools close.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private readonly checks = new Map<string, ReadinessCheck>();
  private shuttingDown?: Promise<void>;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs = 10_000,
  ) {}

  get isShuttingDown(): boolean {
    return this.shuttingDown !== undefined;
  }

  onShutdown(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** `/healthz`: the process is alive. `/readyz`: every dependency answers and we are not stopping. */
  mountHealth(app: Express): void {
    app.get('/healthz', (_req: Request, res: Response) => {
      res.json({ status: 'ok' });
    });
    app.get('/readyz', async (_req: Request, res: Response) => {
      if (this.isShuttingDown) {
        res.status(503).json({ status: 'shutting-down' });
        return;
      }
      const failures: Record<string, string> = {};
      await Promise.all(
        [...this.checks].map(async ([name, check]) => {
          try {
            await withTimeout(check(), 2000, `${name} readiness check timed out`);
          } catch (err) {
            failures[name] = (err as Error).message;
          }
        }),
      );
      if (Object.keys(failures).length > 0) res.status(503).json({ status: 'not-ready', failures });
      else res.json({ status: 'ready' });
    });
  }

  /**
   * Stops an HTTP server gracefully: no new connections, in-flight requests finish, idle sockets
   * close, and within half the shutdown budget whatever is still open is closed, so that the steps
   * after it (consumers, relays, pools) always get their turn.
   */
  registerHttpServer(name: string, server: Server): void {
    this.onShutdown(name, () => closeServer(server, Math.floor(this.timeoutMs / 2)));
  }

  shutdown(reason = 'requested'): Promise<void> {
    if (this.shuttingDown) return this.shuttingDown;
    this.logger.info({ reason }, 'shutting down');
    this.shuttingDown = (async () => {
      const deadline = withTimeout(
        (async () => {
          for (const closer of [...this.closers].reverse()) {
            try {
              await closer.close();
              this.logger.debug({ component: closer.name }, 'stopped');
            } catch (err) {
              this.logger.error({ err, component: closer.name }, 'error while stopping');
            }
          }
        })(),
        this.timeoutMs,
        'graceful shutdown timed out',
      );
      await deadline.catch((err) => this.logger.error({ err }, 'shutdown incomplete'));
      this.logger.info('stopped');
    })();
    return this.shuttingDown;
  }

  /** SIGTERM (Kubernetes) and SIGINT (Ctrl-C) shut down gracefully, then exit. */
  installSignalHandlers(): void {
    const handler = (signal: NodeJS.Signals) => {
      void this.shutdown(signal).then(() => process.exit(0));
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
  }
}

/**
 * Closes a server: no new connections; every request still arriving on an open keep-alive
 * connection is answered with `Connection: close`, so its socket ends with the answer (callers'
 * pools keep sockets open longer than any shutdown budget, and a busy one never lets its socket go
 * idle); idle sockets close now; after `drainMs`, whatever is left is closed too.
 */
export function closeServer(server: Server, drainMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const lastAnswer = (_req: IncomingMessage, res: ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    };
    server.prependListener('request', lastAnswer);
    const drained = setTimeout(() => server.closeAllConnections(), drainMs);
    drained.unref();
    server.close((err) => {
      clearTimeout(drained);
      server.off('request', lastAnswer);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

export function listen(server: Server, port: number, host = '0.0.0.0'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
