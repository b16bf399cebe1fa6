import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem, statusTitle, type ProblemTypeName } from '@pf/platform/problems';
import { SERVICE_API_VERSION_HEADER } from './request-context';

/**
 * What Node's HTTP parser reports before express sees a request, and how the edge answers it.
 * `received`: the bytes the parser was reading when it gave up (Node's `rawPacket`) and how many of
 * them it had parsed (`bytesParsed`), if known.
 */
export function clientErrorAnswer(code: string | undefined, received?: { bytes: Buffer; parsed: number }): Problem {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // Node counts the request line with the headers against one limit; RFC 9112 section 3
      // asks for 414 when it is the request target that is too long.
      if (received && requestLineOverflows(received.bytes, received.parsed)) return answer('uri-too-long', 'The request line (its path and query) is too long.');
      return answer('headers-too-large', 'The request line and headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return answer('request-timeout', 'The request did not arrive in time.');
    default:
      return answer('bad-request', 'The request is not valid HTTP.');
  }
}

/**
 * Whether the bytes the parser overflowed on are a request line that had not ended where it gave
 * up (`parsed` bytes in): they start the request (a method, a space) and hold no line end before
 * that. Only what that read held is known: a head that arrived in several reads, whose last held
 * no request line, is told 431.
 */
export function requestLineOverflows(received: Buffer, parsed: number): boolean {
  const start = received.subarray(0, 16).toString('latin1');
  const lineEnd = received.indexOf('\n');
  return /^[A-Z]+ \S/.test(start) && (lineEnd < 0 || lineEnd >= parsed);
}

/**
 * Node's limits on slow clients from the edge's settings: a request whose headers, or whole body,
 * have not arrived in time is answered 408 (answerClientErrors) and its connection closed, so
 * connections trickling bytes in cannot hold sockets for Node's own 60 s and 300 s. Node looks
 * every `connectionsCheckingInterval` (an option of createServer only), kept well below them.
 */
export function slowClientLimits(config: { REQUEST_HEADERS_TIMEOUT_MS: number; REQUEST_TIMEOUT_MS: number }): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: Math.min(config.REQUEST_HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(config.REQUEST_HEADERS_TIMEOUT_MS / 4))),
  };
}

function answer(type: ProblemTypeName, detail: string): Problem {
  return new Problem(type, { detail });
}

/**
 * Requests Node's HTTP parser refuses (oversized headers, malformed request lines, time-outs)
 * never reach express; by default Node answers them with a bare status line. They get a problem
 * body and the contract version header like every other response (spec section 4), then the
 * connection closes (the parser cannot go on reading it). So does a request with an `Expect`
 * other than `100-continue`, which Node would answer with a bare 417. An HTTP/1.1 request without
 * `Host`, which Node would also answer bare, goes on to express, where `refuseMalformedHead`
 * answers it (request-head.ts).
 */
export function answerClientErrors(server: http.Server, apiVersion: string): void {
  // The server option of http.createServer({ requireHostHeader }), kept on the server and read per
  // request (Node 20); its types declare only the option.
  (server as http.Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const { status, headers, body } = problemResponse(apiVersion, answer('expectation-failed', 'The only expectation this server meets is 100-continue.'));
    res.writeHead(status, headers);
    res.end(body);
  });
  // A request answered before its body had all come (a 401 for a POST still uploading) may time out
  // afterwards: its connection already carries that answer, and a 408 must not follow it.
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('finish', () => {
      if (req.complete) return;
      answeredEarly.add(req.socket);
      // The body came after all: the connection's next request is a new one.
      req.once('end', () => answeredEarly.delete(req.socket));
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable || answeredEarly.has(socket)) {
      socket.destroy();
      return;
    }
    const { rawPacket, bytesParsed } = err as { rawPacket?: Buffer; bytesParsed?: number };
    endWithProblem(socket, apiVersion, clientErrorAnswer(err.code, rawPacket && bytesParsed !== undefined ? { bytes: rawPacket, parsed: bytesParsed } : undefined));
  });
  // CONNECT (a proxy tunnel) never reaches express; without a listener Node drops the connection.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    if (socket.writable) endWithProblem(socket, apiVersion, answer('method-not-allowed', 'This server is not a proxy: CONNECT is not answered.'));
    else socket.destroy();
  });
}

/** Connections whose last request was answered before its body had all come. */
const answeredEarly = new WeakSet<object>();

/** A problem answer Node would otherwise give bare: status, headers (the version among them; the connection closes) and body. */
function problemResponse(apiVersion: string, problem: Problem): { status: number; headers: Record<string, string>; body: string } {
  const body = JSON.stringify(problem.toBody());
  const headers = {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    [SERVICE_API_VERSION_HEADER]: apiVersion,
    Connection: 'close',
  };
  return { status: problem.status, headers, body };
}

/** The same written on the raw socket (the parser gave up on it, or it was a CONNECT), which then closes. */
function endWithProblem(socket: Duplex, apiVersion: string, problem: Problem): void {
  const { status, headers, body } = problemResponse(apiVersion, problem);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${statusTitle(status)}\r\n${lines.join('')}\r\n${body}`);
}
