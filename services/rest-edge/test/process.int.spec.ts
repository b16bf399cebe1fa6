import { freePort } from '@pf/platform/testing/infra';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import http from 'node:http';
import { closeServer, Lifecycle, listen } from '@pf/platform/http/lifecycle';
import { serviceRootApp } from '@pf/platform/service/root-app';
import { tcpRelay } from '@pf/platform/testing/tcp-relay';
import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { restEdgeService } from '../src';
import { startRestEdgeProcess, type RestEdgeProcess } from '../src/process';
import { CapturedLogs, closeAgents, jwtOptions, seedTeam, startSystem, type IssuedToken, type System } from './support/system';

/** The production wiring (src/main.ts): health, readiness, the API, graceful shutdown. */
describe('rest-edge process', () => {
  let sys: System;
  let acme: Record<string, IssuedToken>;
  const started: RestEdgeProcess[] = [];

  const env = (overrides: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    GATEWAY_URL: sys.gatewayUrl,
    ACCOUNTS_URL: sys.accountsUrl,
    REDIS_URL: testInfra.redisUrl,
    REDIS_KEY_PREFIX: `pf-edge-test:${uniqueSuffix()}:`,
    JWT_SIGNING_KEY: jwtOptions.key,
    JWT_ISSUER: jwtOptions.issuer,
    JWT_AUDIENCE: jwtOptions.audience,
    // This process does not share the system's bus; the cache is off so nothing depends on its events.
    EVENT_BUS: 'memory',
    AUTH_CACHE_TTL_MS: '0',
    ...overrides,
  });

  async function start(overrides: Record<string, string> = {}) {
    const p = await startRestEdgeProcess(env(overrides), new CapturedLogs('rest-edge').logger);
    started.push(p);
    return { p, url: `http://127.0.0.1:${p.port}` };
  }

  async function get(url: string, token?: string) {
    const res = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as any };
  }

  beforeAll(async () => {
    sys = await startSystem();
    acme = await seedTeam(sys, 'acme', ['shop']);
  }, 60_000);

  afterAll(async () => {
    for (const p of started) await p.lifecycle.shutdown('test done');
    await sys?.close();
    await closeAgents();
  });

  it('serves /healthz, /readyz and the API, each with the version header', async () => {
    const { url } = await start();
    const health = await get(`${url}/healthz`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.headers['service-api-version']).toBe('1.2.0');
    const ready = await get(`${url}/readyz`);
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(ready.headers['service-api-version']).toBe('1.2.0');
    const api = await get(`${url}/v1/channels/acme-shop/`, acme.shop!.token);
    expect(api.status).toBe(200);
    expect(api.body.data.id).toBe('acme-shop');
  });

  it('serves /metrics with each answer counted under its operation\'s path template, refusals included', async () => {
    const { url } = await start();
    expect((await get(`${url}/v1/channels/acme-shop/orders/0f8c2d5e-3b7a-4c1d-9e6f-5a4b3c2d1e0f`)).status).toBe(401);
    expect((await get(`${url}/v1/channels/acme-shop/`, acme.shop!.token)).status).toBe(200);
    expect((await get(`${url}/v1/channels/acme-shop/no-such-thing`, acme.shop!.token)).status).toBe(404);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const count = (labels: string) => Number(new RegExp(`^http_server_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect(count('service="rest-edge",method="GET",route="/v1/channels/\\{channelId\\}/orders/\\{orderUuid\\}",status_code="401"')).toBeGreaterThanOrEqual(1);
    expect(count('service="rest-edge",method="GET",route="/v1/channels/\\{channelId\\}",status_code="200"')).toBeGreaterThanOrEqual(1);
    expect(count('service="rest-edge",method="GET",route="unmatched",status_code="404"')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('0f8c2d5e');
  });

  it('is not ready while the gateway does not answer', async () => {
    const port = await freePort();
    const { url } = await start({ GATEWAY_URL: `http://127.0.0.1:${port}/graphql` });
    const ready = await get(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not-ready', failures: { 'rest-edge': expect.stringMatching(/gateway/) } });
    expect((await get(`${url}/healthz`)).status).toBe(200);
  });

  it('once its upstreams answered, stays ready through a gateway outage: each request answers it (500 with a reference), the pods stay in service', async () => {
    // A TCP relay in front of the gateway, to take it away.
    const target = new URL(sys.gatewayUrl);
    const relay = await tcpRelay({ host: target.hostname, port: Number(target.port) });
    const { url } = await start({ GATEWAY_URL: `http://127.0.0.1:${relay.port}${target.pathname}` });
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    await relay.cut();
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    const channel = await get(`${url}/v1/channels/acme-shop/`, acme.shop!.token);
    expect(channel).toMatchObject({ status: 500, body: { status: 500, reference: expect.any(String) } });
  });

  it('stays ready while the orders service does not answer: its endpoints answer 500 with a reference (section 7), the rest serves', async () => {
    const port = await freePort();
    const { url } = await start({ ORDERS_URL: `http://127.0.0.1:${port}/graphql` });
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    const orders = await get(`${url}/v1/channels/acme-shop/orders`, acme.shop!.token);
    expect(orders.status).toBe(500);
    expect(orders.body).toMatchObject({ status: 500, reference: expect.any(String) });
    expect(orders.headers['service-api-version']).toBe('1.2.0');
    expect((await get(`${url}/v1/channels/acme-shop/`, acme.shop!.token)).status).toBe(200);
  });

  it('refuses to start with a bad setting, naming it', async () => {
    await expect(startRestEdgeProcess(env({ RATE_LIMIT_PER_TOKEN: 'lots' }), new CapturedLogs('x').logger)).rejects.toMatchObject({
      name: 'ConfigError',
      variables: ['RATE_LIMIT_PER_TOKEN'],
    });
  });

  /** Writes raw bytes and reads the whole answer (the edge closes the connection after it). */
  function rawExchange(port: number, bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => resolve(answer));
      socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' && answer ? resolve(answer) : reject(err)));
      socket.write(bytes);
    });
  }

  it('what Node refuses before express (oversized headers, a malformed request) still gets a problem and the version header', async () => {
    const { p } = await start();
    const oversized = await rawExchange(p.port, `GET /v1/channels/acme-shop/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'t'.repeat(20_000)}\r\n\r\n`);
    expect(oversized).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(oversized).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    expect(JSON.parse(oversized.split('\r\n\r\n')[1]!)).toEqual({
      type: `${PROBLEM_TYPE_BASE}headers-too-large`,
      title: 'Request Header Fields Too Large',
      status: 431,
      detail: expect.any(String),
    });
    // The request line alone over the limit: 414 (RFC 9112 section 3), not 431.
    const longTarget = await rawExchange(p.port, `GET /v1/channels/acme-shop/orders?order-number=${'n'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longTarget).toMatch(/^HTTP\/1\.1 414 URI Too Long\r\n/);
    expect(longTarget).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    expect(JSON.parse(longTarget.split('\r\n\r\n')[1]!)).toEqual({ type: `${PROBLEM_TYPE_BASE}uri-too-long`, title: 'URI Too Long', status: 414, detail: expect.any(String) });
    const expectation = await rawExchange(p.port, 'POST /v1/channels/acme-shop/test-connection HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}');
    expect(expectation).toMatch(/^HTTP\/1\.1 417 Expectation Failed\r\n/);
    expect(expectation).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    expect(JSON.parse(expectation.split('\r\n\r\n')[1]!)).toEqual({ type: `${PROBLEM_TYPE_BASE}expectation-failed`, title: 'Expectation Failed', status: 417, detail: expect.any(String) });
    const connect = await rawExchange(p.port, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    expect(connect).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(connect).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    const garbage = await rawExchange(p.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(garbage).toMatch(/\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/);
    expect(garbage).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    expect(JSON.parse(garbage.split('\r\n\r\n')[1]!)).toEqual({ type: `${PROBLEM_TYPE_BASE}bad-request`, title: 'Bad Request', status: 400, detail: expect.any(String) });
  });

  it('a client that trickles its headers or its body in is answered 408 with a problem once REQUEST_HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS is up, and cut off', async () => {
    const { p } = await start({ REQUEST_HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
    const timedOut = { type: `${PROBLEM_TYPE_BASE}request-timeout`, title: 'Request Timeout', status: 408, detail: expect.any(String) };
    /** Sends `bytes` and then nothing: the answer and how long it took. */
    const stall = async (bytes: string) => {
      const began = Date.now();
      const answer = await rawExchange(p.port, bytes);
      return { answer, ms: Date.now() - began };
    };
    const headers = await stall('GET /v1/channels/acme-shop/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer');
    expect(headers.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(headers.answer).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    expect(JSON.parse(headers.answer.split('\r\n\r\n')[1]!)).toEqual(timedOut);
    expect(headers.ms).toBeLessThan(5_000);
    const body = await stall(`POST /v1/channels/acme-shop/test-connection HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.shop!.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"echo":`);
    expect(body.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(body.answer.split('\r\n\r\n')[1]!)).toEqual(timedOut);
    // A request answered before its body had all come (no token: 401) gets that answer only, no 408 after it.
    const early = await stall('POST /v1/channels/acme-shop/test-connection HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"echo":');
    expect(early.answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401']);
    // An idle keep-alive connection between two requests is no slow client: it stays open.
    const socket = net.connect(p.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    const request = `GET /v1/channels/acme-shop/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.shop!.token}\r\n\r\n`;
    try {
      socket.write(request);
      await new Promise((r) => setTimeout(r, 2_500));
      socket.write(request);
      await new Promise((r) => setTimeout(r, 500));
      expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    } finally {
      socket.destroy();
    }
    expect(body.ms).toBeLessThan(6_000);
  }, 20_000);

  it('an HTTP/1.1 request without Host, with two, with one that is not a host, or with two Authorization headers is a 400 problem; an absolute-form target is served', async () => {
    const { p } = await start();
    const auth = `Authorization: Bearer ${acme.shop!.token}\r\nConnection: close\r\n`;
    const badRequest = { type: `${PROBLEM_TYPE_BASE}bad-request`, title: 'Bad Request', status: 400, detail: expect.any(String) };
    for (const head of ['', 'Host: a.example\r\nHost: b.example\r\n', 'Host: a"b/c?d#e\r\n', `Host: a.example\r\n${auth.split('\r\n')[0]}\r\n`]) {
      const answer = await rawExchange(p.port, `GET /v1/channels/acme-shop/products?per-page=1 HTTP/1.1\r\n${head}${auth}\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
      expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual(badRequest);
    }
    // HTTP/1.0 has no Host to send
    expect(await rawExchange(p.port, `GET /v1/channels/acme-shop/ HTTP/1.0\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const absolute = await rawExchange(p.port, `GET http://api.example:8080/v1/channels/acme-shop/ HTTP/1.1\r\nHost: ignored.example\r\n${auth}\r\n`);
    expect(absolute).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(absolute.split('\r\n\r\n')[1]!).data.id).toBe('acme-shop');
  });

  it('a SIGTERM while the start still waits for the broker stops it gracefully (dist/main.js)', async () => {
    const closedPort = await freePort();
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
      env: { ...env({ EVENT_BUS: 'kafka', KAFKA_BROKERS: `127.0.0.1:${closedPort}`, AUTH_CACHE_TTL_MS: '30000', LOG_LEVEL: 'info' }), PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (d) => (logs += d));
    child.stderr.on('data', (d) => (logs += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    // The start subscribes to credential changes on a broker nobody listens on: it waits there,
    // once the Kafka client has said it cannot connect (a loaded machine takes seconds to get there).
    for (let waited = 0; !/ECONNREFUSED/.test(logs) && waited < 45_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(logs).toMatch(/ECONNREFUSED/);
    expect(logs).not.toContain('rest-edge listening');
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(logs).toContain('shutting down');
  }, 60_000);

  it('shuts down gracefully and stops listening', async () => {
    const { p, url } = await start();
    expect((await get(`${url}/readyz`)).status).toBe(200);
    await p.lifecycle.shutdown('test');
    expect(p.server.listening).toBe(false);
    await expect(request(`${url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("runs as a ServiceDefinition (the embedded wiring): signing key from the shared secret, in-memory rate limits, the runner's routes with the version header", async () => {
    const instance = await restEdgeService.create({
      databaseUrl: '',
      bus: sys.bus,
      jwt: { algorithm: jwtOptions.algorithm, key: jwtOptions.key, issuer: jwtOptions.issuer, audience: jwtOptions.audience },
      logger: new CapturedLogs('rest-edge').logger,
      env: { GATEWAY_URL: sys.gatewayUrl, ACCOUNTS_URL: sys.accountsUrl, RATE_LIMIT_STORE: 'memory', RATE_LIMIT_PER_TOKEN: '2',
        // nothing listens there: the in-memory limiter never needs it
        REDIS_URL: 'redis://127.0.0.1:1' },
    });
    await instance.start();
    // The slow-client limits come with it, checking interval included (Node takes that only at creation).
    expect(instance.serverOptions).toEqual({ headersTimeout: 20_000, requestTimeout: 60_000, connectionsCheckingInterval: 5_000 });
    // Served as the embedded runner serves it: its health and metrics routes ahead of the edge's app.
    const server = http.createServer(instance.serverOptions ?? {}, serviceRootApp(instance, new Lifecycle(new CapturedLogs('runner').logger)));
    instance.configureServer?.(server);
    const port = await listen(server, 0, '127.0.0.1');
    try {
      await instance.ready();
      for (const route of ['/healthz', '/readyz', '/metrics']) {
        const answer = await request(`http://127.0.0.1:${port}${route}`);
        await answer.body.dump();
        expect({ route, status: answer.statusCode, version: answer.headers['service-api-version'] }).toEqual({ route, status: 200, version: '1.2.0' });
      }
      const url = `http://127.0.0.1:${port}/v1/channels/acme-shop/`;
      expect((await get(url, acme.shop!.token)).status).toBe(200);
      expect((await get(url, acme.shop!.token)).status).toBe(200);
      const third = await get(url, acme.shop!.token);
      expect(third.status).toBe(429);
      expect(third.headers['x-ratelimit-limit']).toBe('2');
      expect(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/\r\nService-Api-Version: 1\.2\.0\r\n/);
    } finally {
      await closeServer(server);
      await instance.stop();
    }
  });
});
