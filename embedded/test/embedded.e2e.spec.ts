import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '@pf/platform/testing/infra';

/**
 * `npm start` as a developer runs it: the built embedded wiring (embedded/dist/main.js) in its own
 * process, with its own embedded PostgreSQL under a fresh data directory. It starts, serves the
 * REST Channel API and the supergraph with the demo data, stops on SIGINT, and a second start on
 * the same data finds what the first left (the saved token, the order placed).
 */
const MAIN = path.resolve(__dirname, '..', 'dist', 'main.js');

interface DemoCredentials {
  restBaseUrl: string;
  graphqlUrl: string;
  channelId: string;
  token: string;
  backOfficeJwt: string;
}

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start (the embedded wiring)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pf-embedded-'));
  let env: NodeJS.ProcessEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = {
      ...process.env,
      PF_DATA_DIR: dataDir,
      PF_REST_PORT: String(await freePort()),
      PF_GATEWAY_PORT: String(await freePort()),
      PF_POSTGRES_PORT: String(await freePort()),
      // info: the log lines of a start are checked too.
      LOG_LEVEL: 'info',
      // A service setting from the environment reaches the service (the countdown, checked below).
      ORDER_COUNTDOWN_SECONDS: '321',
    };
  });
  afterAll(async () => {
    if (child && child.exitCode === null) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** Starts the embedded system and resolves once it printed that it is running. */
  /** What the last started process wrote (stdout and stderr). */
  let output = '';

  function start(): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      const p = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      output = '';
      const timer = setTimeout(() => reject(new Error(`not running after 150 s:\n${out}`)), 150_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        output += chunk.toString();
        if (out.includes('is running (embedded wiring)')) {
          clearTimeout(timer);
          resolve(p);
        }
      };
      p.stdout!.on('data', onData);
      p.stderr!.on('data', onData);
      p.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before it was running:\n${out}`));
      });
    });
  }

  /** SIGINT, as Ctrl-C: resolves with the exit code. */
  function stop(p: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => {
      p.removeAllListeners('exit');
      p.on('exit', (code) => resolve(code));
      p.kill('SIGINT');
    });
  }

  const credentials = (): DemoCredentials => JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));

  async function rest(c: DemoCredentials, method: string, route: string, body?: unknown): Promise<{ status: number; body: any; version: string | null }> {
    const res = await fetch(`${c.restBaseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${c.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json(), version: res.headers.get('service-api-version') };
  }

  let orderUuid: string;

  it('starts on a fresh data directory, places and confirms an order through the REST API, answers the supergraph, and stops on SIGINT', async () => {
    child = await start();
    const c = credentials();
    const channel = await rest(c, 'GET', '/');
    expect(channel).toMatchObject({ status: 200, version: '1.2.0', body: { data: { id: c.channelId } } });

    // A demo product with stock on a shelf (a figure below the print-on-demand sentinel).
    const levels = await rest(c, 'GET', '/stock-levels');
    const stocked = (levels.body.data as { sku: string | null; stock: number }[]).find((l) => l.sku !== null && l.stock >= 2 && l.stock < 10_000)!;
    expect(stocked).toBeDefined();

    const created = await rest(c, 'POST', '/orders', {
      orderNumber: 'E2E-1',
      orderLines: [{ lineNumber: 1, product: { sku: stocked.sku }, quantity: 2 }],
      shippingDetails: { firstName: 'Ada', lastName: 'Lovelace', address1: '1 Test Street', city: 'Leeds', postalCode: 'LS1 1AA', country: { code: 'GB' } },
    });
    expect(created).toMatchObject({ status: 201, body: { orderNumber: 'E2E-1', status: 'draft', confirmedAt: null } });
    orderUuid = created.body.uuid;

    const confirmed = await rest(c, 'PUT', `/orders/${orderUuid}/confirm`, {});
    expect(confirmed.status).toBe(202);
    expect(confirmed.body.data.confirmedAt).toEqual(expect.any(String));
    expect(Date.parse(confirmed.body.data.fulfillableFrom) - Date.parse(confirmed.body.data.confirmedAt)).toBe(321_000);
    const after = await rest(c, 'GET', '/stock-levels');
    expect((after.body.data as { sku: string | null; stock: number }[]).find((l) => l.sku === stocked.sku)!.stock).toBe(stocked.stock - 2);

    // The back-office through the gateway: the order with its line's product and stock (three subgraphs).
    const graph = await backOffice(c, 'query ($uuid: ID!) { order(uuid: $uuid) { status orderLines { catalogProduct { sku stock } } } }', { uuid: orderUuid });
    expect(graph.order.orderLines).toEqual([{ catalogProduct: { sku: stocked.sku, stock: stocked.stock - 2 } }]);

    // Every log line names its service once (a strict JSON reader refuses a key given twice).
    const logLines = output.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((l) => (l.match(/"service":/g) ?? []).length !== 1)).toEqual([]);

    // Ctrl-C: a graceful stop, the embedded PostgreSQL included (it runs in its own session).
    expect(await stop(child)).toBe(0);
    expect(await listening(Number(env.PF_POSTGRES_PORT))).toBe(false);
  }, 240_000);

  /** A back-office GraphQL call with the demo merchant's JWT. */
  async function backOffice(c: DemoCredentials, query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const res = await fetch(c.graphqlUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.backOfficeJwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  const stockOf = async (c: DemoCredentials, sku: string) =>
    ((await rest(c, 'GET', '/stock-levels')).body.data as { sku: string | null; stock: number }[]).find((l) => l.sku === sku)?.stock;

  it('starts again on the same data: the saved token still works, the order is there, and a merchant product gets no demo stock', async () => {
    const before = credentials();
    if (child && child.exitCode === null) await stop(child);
    child = await start();
    const c = credentials();
    expect(c.token).toBe(before.token);
    const order = await rest(c, 'GET', `/orders/${orderUuid}`);
    expect(order).toMatchObject({ status: 200, body: { data: { uuid: orderUuid, orderNumber: 'E2E-1' } } });

    // The merchant's own product, created between two starts, keeps the stock the merchant gave it.
    await backOffice(c, 'mutation { createProduct(input: { sku: "E2E-OWN", name: "Own product" }) { uuid } }');
    for (let i = 0; i < 40 && (await stockOf(c, 'E2E-OWN')) === undefined; i++) await new Promise((r) => setTimeout(r, 250));
    expect(await stockOf(c, 'E2E-OWN')).toBe(0);
    expect(await stop(child)).toBe(0);
    child = await start();
    expect(await stockOf(c, 'E2E-OWN')).toBe(0);
    expect(await stop(child)).toBe(0);
    expect(await listening(Number(env.PF_POSTGRES_PORT))).toBe(false);
  }, 240_000);

  it('events of the last minutes go out again at the next start: what the in-memory bus held when the process ended is not lost', async () => {
    child = await start();
    const db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.PF_POSTGRES_PORT}/platform` });
    await db.connect();
    try {
      // As if the process had ended after the relay published the order's events and before the
      // webhooks service handled them: its read model and inbox know nothing of them.
      await db.query('DELETE FROM webhooks.order_view WHERE order_uuid = $1', [orderUuid]);
      await db.query('DELETE FROM webhooks.inbox_event');
    } finally {
      await db.end();
    }
    expect(await stop(child)).toBe(0);
    child = await start();
    const again = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.PF_POSTGRES_PORT}/platform` });
    await again.connect();
    try {
      let found = 0;
      for (let i = 0; i < 60 && found === 0; i++) {
        found = (await again.query('SELECT 1 FROM webhooks.order_view WHERE order_uuid = $1', [orderUuid])).rowCount ?? 0;
        if (found === 0) await new Promise((r) => setTimeout(r, 500));
      }
      expect(found).toBe(1);
    } finally {
      await again.end();
    }
    expect(await stop(child)).toBe(0);
  }, 360_000);
});
