import http from 'node:http';
import { closeServer, listen } from '@pf/platform/http/lifecycle';
import { request } from 'undici';

/**
 * A transparent HTTP proxy in front of an upstream (the network between the edge and a
 * subgraph): it counts the requests that cross it and can break the n-th one, as a failing
 * network or upstream would. The upstream itself is real and untouched.
 */
export interface TappedUpstream {
  /** The URL to give the edge instead of the upstream's. */
  url: string;
  /** Requests forwarded or broken so far. */
  requests: number;
  /** The Authorization header of each request so far, in order (the identity the edge sent). */
  authorizations: string[];
  /** Answer request number n (from 1) with this status (and this JSON body) instead of forwarding it. */
  failRequest(n: number, status?: number, json?: unknown): void;
  /** Hold every request this long before forwarding it (a slow upstream). */
  delayMs: number;
  reset(): void;
  close(): Promise<void>;
}

export async function tapUpstream(target: string): Promise<TappedUpstream> {
  const targetUrl = new URL(target);
  const failures = new Map<number, { status: number; json?: unknown }>();
  const server = http.createServer((req, res) => {
    const n = ++tap.requests;
    tap.authorizations.push(String(req.headers.authorization ?? ''));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const failure = failures.get(n);
      if (failure !== undefined) {
        if (failure.json !== undefined) res.writeHead(failure.status, { 'content-type': 'application/json' }).end(JSON.stringify(failure.json));
        else res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('broken by the test proxy');
        return;
      }
      if (tap.delayMs > 0) setTimeout(() => forward(), tap.delayMs);
      else forward();
    });
    function forward() {
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      request(new URL(req.url ?? '/', targetUrl), { method: req.method as 'POST', headers, body: Buffer.concat(chunks) }).then(
        async (upstream) => {
          const body = Buffer.from(await upstream.body.arrayBuffer());
          res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type'] ?? 'application/json') }).end(body);
        },
        () => res.destroy(),
      );
    }
  });
  const port = await listen(server, 0, '127.0.0.1');
  const tap: TappedUpstream = {
    url: `http://127.0.0.1:${port}${targetUrl.pathname}`,
    requests: 0,
    authorizations: [],
    delayMs: 0,
    failRequest(n, status = 503, json) {
      failures.set(n, { status, json });
    },
    reset() {
      failures.clear();
      tap.requests = 0;
      tap.authorizations = [];
      tap.delayMs = 0;
    },
    close: () => closeServer(server),
  };
  return tap;
}
