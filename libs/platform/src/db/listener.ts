import pg from 'pg';
import type { Logger } from '../logging';

export interface ChannelListenerOptions {
  /** Connection settings (a pool's `options`). */
  connection: pg.ClientConfig;
  /** The NOTIFY channel, already a safe identifier. */
  channel: string;
  onNotify: () => void;
  logger: Pick<Logger, 'warn'>;
  /** Named in the log lines. */
  label: string;
  /** First wait before reconnecting; doubled up to `maxRetryMs` while connecting fails. */
  retryMs?: number;
  maxRetryMs?: number;
}

/**
 * One connection that LISTENs on a channel, kept open: when the server drops it, it is closed and
 * one new connection is made (pg reports a dropped connection with several 'error' events: each
 * used to start its own reconnection, doubling the connections at every drop until the server
 * refused clients). A failed reconnection is tried again with a growing wait. Losing it only costs
 * latency where it is used: the poll still runs.
 */
export class ChannelListener {
  private client?: pg.Client;
  private retry?: NodeJS.Timeout;
  private running = false;
  private wait: number;

  constructor(private readonly opts: ChannelListenerOptions) {
    this.wait = opts.retryMs ?? 1000;
  }

  /** Connects and listens; resolves once listening (or once the first attempt failed, retrying in the background). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Whether a connection is listening now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.opts.connection);
    let lost = false;
    // The first failure of this connection closes it and schedules one reconnection; later ones are its echoes.
    const lose = (err: unknown, message: string) => {
      if (lost) return;
      lost = true;
      this.opts.logger.warn({ err, listener: this.opts.label }, message);
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.reconnectLater();
    };
    client.on('notification', () => this.opts.onNotify());
    client.on('error', (err) => lose(err, 'listener connection lost'));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
    } catch (err) {
      lose(err, 'listener could not connect');
      return;
    }
    if (!this.running || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.wait = this.opts.retryMs ?? 1000;
  }

  private reconnectLater(): void {
    if (!this.running || this.retry) return;
    const wait = this.wait;
    this.wait = Math.min(wait * 2, this.opts.maxRetryMs ?? 30_000);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.running) void this.connect();
    }, wait);
  }
}
