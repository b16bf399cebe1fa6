import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { AttemptResult } from '../domain/delivery-rules';
import {
  checkWebhookUrl,
  expandPlaceholder,
  judgeAddress,
  type AddressPolicy,
  type HostResolver,
  type ResolvedAddress,
} from '../domain/url-policy';

/** The contract version every webhook announces (spec section 9). */
export const WEBHOOK_API_VERSION = '1.2.0';

/** A receiver's answer is read up to this size and then dropped: only its status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SenderOptions {
  resolver: HostResolver;
  policy: AddressPolicy;
  timeoutMs: number;
  /** An extra CA (PEM) trusted besides the system roots (tests and local development only). */
  extraCa?: string | undefined;
  /** Most sockets kept open per origin and addresses. */
  maxSockets?: number;
  /** Most idle keep-alive sockets kept across every receiver; a socket set free beyond it is closed. */
  maxIdleSockets?: number;
  /** An idle keep-alive socket is closed after this long (a receiver may never close it). */
  idleSocketTimeoutMs?: number;
}

/** Idle keep-alive sockets are a receiver's to hold open: at most this many, each at most this long. */
const DEFAULT_MAX_IDLE_SOCKETS = 256;
const DEFAULT_IDLE_SOCKET_TIMEOUT_MS = 15_000;

/** One attempt to make. */
export interface AttemptRequest {
  /** The channel's registered URL, as stored (checked again here: rule W1 with fresh DNS). */
  registeredUrl: string | null;
  notificationType: string;
  body: Buffer;
  signature: string;
  deliveryId: string;
  attempt: number;
}

export interface AttemptOutcome {
  result: AttemptResult;
  /** The URL attempted (placeholder replaced), when there was one. */
  url: string | null;
  durationMs: number;
}

/** Sockets are pooled per host AND the set of addresses that passed: a socket is only reused for the same checked addresses. */
interface PinnedRequestOptions extends https.RequestOptions {
  pinnedAddresses?: string;
}

/**
 * A keep-alive agent whose pool key is the origin plus the addresses that passed W1 for this
 * attempt. A socket opened to an address that an earlier check passed is reused only while the
 * current check passes exactly the same addresses; otherwise a new connection goes to the new
 * ones (through the pinned lookup, never a second resolution).
 */
class PinnedAgent extends https.Agent {
  constructor(
    options: https.AgentOptions,
    private readonly maxIdleSockets: number,
  ) {
    super(options);
  }

  override getName(options?: PinnedRequestOptions): string {
    return `${options?.host ?? ''}:${options?.port ?? ''}:${options?.servername ?? ''}:${options?.pinnedAddresses ?? ''}`;
  }

  /**
   * Keeps a socket set free only while fewer than `maxIdleSockets` are idle in every pool together:
   * a pool is per host and addresses, so a receiver whose name answers new addresses (or new names)
   * at each attempt would otherwise leave one idle socket per attempt, open as long as it liked.
   */
  override keepSocketAlive(socket: Parameters<https.Agent['keepSocketAlive']>[0]): boolean {
    let idle = 0;
    for (const pool of Object.values(this.freeSockets)) idle += pool?.length ?? 0;
    if (idle >= this.maxIdleSockets) return false;
    return (super.keepSocketAlive as (s: typeof socket) => boolean)(socket);
  }
}

/**
 * A `lookup` that resolves nothing: it hands the client exactly the addresses rule W1 passed for
 * this attempt, judged once more, and refuses any other host name. Node calls it for names only;
 * IP-literal hosts are judged before the request (some clients never call `lookup` for them).
 */
export function pinnedLookup(hostname: string, addresses: readonly ResolvedAddress[], policy: AddressPolicy): LookupFunction {
  return ((host: string, options: { family?: number | string; all?: boolean }, callback: (...args: unknown[]) => void) => {
    const expected = hostname.toLowerCase();
    if (host.toLowerCase() !== expected) return callback(refusedLookup(`unexpected host ${host}`));
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const usable = addresses.filter((a) => judgeAddress(a.address, policy).public && (family === 0 || a.family === family));
    if (usable.length === 0) return callback(refusedLookup(`no checked address for ${host}`));
    if (options.all) return callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
    return callback(null, usable[0]!.address, usable[0]!.family);
  }) as unknown as LookupFunction;
}

function refusedLookup(message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`Refused by the webhook URL policy: ${message}`);
  err.code = 'EPOLICY';
  return err;
}

/**
 * Sends webhooks: rule W1 again before every attempt (fresh DNS through the injected resolver),
 * then one HTTPS POST of the exact bytes with Node's `https` through a keep-alive agent,
 * connecting only to the addresses that passed, TLS verified against the host name, redirects
 * never followed (Node's client follows none), no decompression.
 *
 * Node's `https` rather than an HTTP client library: the delivery path is the service's hottest
 * loop, and a client library's per-request machinery (options merging, hooks, retry and redirect
 * logic, all switched off here) cost about three times the CPU of the request itself.
 */
export class WebhookSender {
  private readonly agent: PinnedAgent;

  constructor(private readonly opts: SenderOptions) {
    this.agent = new PinnedAgent(
      {
        keepAlive: true,
        maxSockets: opts.maxSockets ?? 64,
        maxFreeSockets: 64,
        // An idle limit on every socket: a free one is closed when it fires (the agent's onTimeout); on a
        // request in flight it only emits 'timeout', which nothing here listens to (the attempt's own
        // timer decides; never add a request 'timeout' listener that would cut it short).
        timeout: opts.idleSocketTimeoutMs ?? DEFAULT_IDLE_SOCKET_TIMEOUT_MS,
        scheduling: 'lifo',
        // Connections go only to checked public addresses and are verified against the host name.
        rejectUnauthorized: true,
        // One TLS context for every connection: handing `ca` to each connection would parse the
        // whole root store again per connection.
        ...(opts.extraCa ? { secureContext: createSecureContext({ ca: [...rootCertificates, opts.extraCa] }) } : {}),
      },
      opts.maxIdleSockets ?? DEFAULT_MAX_IDLE_SOCKETS,
    );
  }

  /** One attempt: never throws; every failure is an `AttemptResult`. */
  async attempt(req: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const done = (result: AttemptResult, url: string | null): AttemptOutcome => ({ result, url, durationMs: Math.round(performance.now() - started) });
    if (!req.registeredUrl) {
      return done({ kind: 'refused', refusal: { code: 'not-a-url', message: 'The channel has no registered webhook URL.', temporary: false } }, null);
    }
    const verdict = await checkWebhookUrl(req.registeredUrl, this.opts.resolver, this.opts.policy);
    if (!verdict.ok) return done({ kind: 'refused', refusal: verdict.refusal }, req.registeredUrl);
    const url = expandPlaceholder(verdict.url, req.notificationType);
    // Belt and braces: the URL object handed to the client has the host that was judged.
    if (url.hostname !== verdict.url.hostname) throw new Error('placeholder expansion changed the host');
    try {
      const statusCode = await this.post(url, verdict.host.kind === 'ip' ? null : verdict.addresses, req);
      return done({ kind: 'response', statusCode }, url.href);
    } catch (err) {
      return done({ kind: 'error', error: describeError(err) }, url.href);
    }
  }

  private post(url: URL, pinned: ResolvedAddress[] | null, req: AttemptRequest): Promise<number> {
    // The host as Node connects to it (brackets of an IPv6 literal removed).
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (pinned === null) {
      // An IP literal: Node connects without calling `lookup`, so it is judged here, last thing
      // before the request (checkWebhookUrl judged it too).
      if (!isIP(host) || !judgeAddress(host, this.opts.policy).public) return Promise.reject(refusedLookup(`address ${host} is not public`));
    }
    const options: PinnedRequestOptions = {
      method: 'POST',
      protocol: 'https:',
      host,
      port: url.port ? Number(url.port) : 443,
      path: `${url.pathname}${url.search}`,
      agent: this.agent,
      headers: {
        'content-type': 'application/json',
        'content-length': String(req.body.length),
        'service-api-version': WEBHOOK_API_VERSION,
        signature: req.signature,
        'user-agent': `pf-webhooks/${WEBHOOK_API_VERSION}`,
        'webhook-delivery-id': req.deliveryId,
        'webhook-attempt': String(req.attempt),
      },
      ...(pinned ? { lookup: pinnedLookup(host, pinned, this.opts.policy) } : {}),
      // Sorted: round-robin DNS answers the same addresses in another order, and that is the same pool.
      pinnedAddresses: pinned ? pinned.map((a) => a.address).sort().join(',') : host,
    };
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const request = https.request(options, (res) => {
        const statusCode = res.statusCode ?? 0;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) {
            // Enough: the status is known and the rest is not ours to read.
            request.destroy();
            finish(() => resolve(statusCode));
          }
        });
        res.once('end', () => finish(() => resolve(statusCode)));
        res.once('error', (err) => finish(() => reject(err)));
        // Closed before its end: the connection broke mid-answer.
        res.once('close', () => finish(() => (res.complete ? resolve(statusCode) : reject(new Error('the connection closed before the answer was complete')))));
      });
      // The whole attempt, connection to the end of the answer, within the time-out.
      const timer = setTimeout(() => {
        const err: NodeJS.ErrnoException = new Error(`no complete answer within ${this.opts.timeoutMs} ms`);
        err.code = 'ETIMEDOUT';
        request.destroy(err);
        finish(() => reject(err));
      }, this.opts.timeoutMs);
      request.once('error', (err) => finish(() => reject(err)));
      request.end(req.body);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * An attempt's failure in words a merchant can act on (it is stored, logged and shown in the
 * back-office): OpenSSL's own text (`error:0A00010B:SSL routines:...:../deps/openssl/...c:350:`)
 * gives way to its reason (`TLS: wrong version number`, a receiver that does not speak TLS).
 */
export function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'ETIMEDOUT') return `timeout: ${e.message ?? 'no answer in time'}`;
  const openssl = OPENSSL_ERROR.exec(e.message ?? '');
  if (openssl) return [e.code, `TLS: ${openssl[1]!.trim()}`].filter(Boolean).join(': ');
  return [e.code, e.message].filter(Boolean).join(': ') || String(err);
}

/** OpenSSL's error text: `<thread>:error:<code>:<library>:<function>:<reason>:<source file>:<line>:`. */
const OPENSSL_ERROR = /error:[0-9A-F]+:[^:]*:[^:]*:([^:\n]+):/;
