// Issue 4: an integration placing orders through the REST edge, next to the database doing the
// same insert directly.
//
// Production wiring, each in its own process from its dist/main.js (lib/stack.mjs): accounts,
// catalog, stock and orders subgraphs on a fresh, migrated bench database (outboxes relayed to
// Kafka, the orders service's read models fed from it), the gateway, and the REST edge (Redis rate
// limiter with the per-token limit raised out of the way). A team with one channel, ten products
// stocked in one warehouse (enough never to run short) and a shipping method, made through the
// back-office GraphQL as a merchant would.
//
// The measured unit is one order: POST /orders with 10 lines (a new orderNumber each time), then
// PUT /orders/{uuid}/confirm with the uuid the first answer gave (holds stock, builds the
// fulfilment, starts the countdown). 32 connections, each running that sequence back to back, for
// 60 s after a warm-up, with the load generator in its own process (this file, forked as a load
// worker: the second request needs the first one's answer, which lib/load-worker.mjs's fixed
// requests cannot express).
//
// Then the edge again at half the maximum rate it reached (a fixed arrival rate, orders evenly
// spaced), for the latency an integration sees when the system is not saturated. Last, pgbench on
// the same database at 16 clients, each transaction the direct SQL insert of such an order and its
// 10 lines into the orders service's tables (last, so that the edge's windows never run against
// the rows it leaves).
import { execFile } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pidsByCommand } from '../lib/cpu.mjs';
import { graphql } from '../lib/http.mjs';
import { runLoad } from '../lib/load.mjs';
import { createBenchChannel, startStack } from '../lib/stack.mjs';
import { summarizeCpuProfile } from '../lib/profile.mjs';
import { ratio, summarizeLatencies } from '../lib/stats.mjs';
import { formatTable, ms, num, pct, times, yesNo } from '../lib/table.mjs';

const execFileAsync = promisify(execFile);
const THIS_FILE = fileURLToPath(import.meta.url);

export const name = 'orders';
export const description = 'POST /orders (10 lines) then confirm through the REST edge vs the same insert with pgbench (issue 4)';

/** Targets of issue 4. */
export const TARGETS = {
  /** Orders per second through the edge (create + confirm) over pgbench transactions per second. */
  minRatioToPgbench: 0.1,
  /** p99 of each request at half the maximum order rate. */
  maxP99AtHalfRateMs: 100,
};

const LINES = 10;

/**
 * Products in the catalogue. 10 (the default): every order names the same ten, so every hold
 * queues on the same ten product locks, the worst case. BENCH_ORDERS_PRODUCTS=N (N > 10): each
 * order names ten consecutive products of N from a random start, so orders rarely meet.
 */
const PRODUCTS = Math.max(LINES, Number(process.env.BENCH_ORDERS_PRODUCTS ?? LINES) || LINES);

/** The ten SKUs of the next order: the catalogue's first ten, or ten from a random start. */
function orderSkus(catalogue) {
  if (catalogue.length === LINES) return catalogue;
  const start = Math.floor(Math.random() * catalogue.length);
  return Array.from({ length: LINES }, (_, i) => catalogue[(start + i) % catalogue.length]);
}

const PLAN = {
  full: { connections: 32, warmupSeconds: 10, durationSeconds: 60, pgbenchClients: 16, pgbenchSeconds: 60 },
  quick: { connections: 32, warmupSeconds: 2, durationSeconds: 5, pgbenchClients: 16, pgbenchSeconds: 5 },
};

// Run as a script (forked by runLoad with `worker: THIS_FILE`), this file is a load worker; imported
// by bench/run.mjs, it is the benchmark.
if (process.argv[1] && path.resolve(process.argv[1]) === THIS_FILE && process.send) runLoadWorker();

/** @param {import('../lib/context.mjs').BenchContext} ctx */
export async function run(ctx) {
  const { root, options } = ctx;
  const plan = options.quick ? PLAN.quick : PLAN.full;
  const require = createRequire(import.meta.url);
  const { signIdentity } = require('@pf/platform/identity');

  const stack = await startStack(ctx, {
    subgraphs: ['accounts', 'catalog', 'stock', 'orders'],
    edge: true,
    env: {
      // The orders service holds stock on the stock subgraph directly. Its countdown outlasts the
      // run: the bench measures placing orders, not sending them.
      // BENCH_ORDERS_DB_POOL_MAX overrides the service's pool size (a diagnostic knob; unset, the
      // service's own default, as deployed).
      orders: ({ subgraphs }) => ({
        STOCK_URL: `${subgraphs.stock.url}/graphql`,
        ORDER_COUNTDOWN_SECONDS: '86400',
        ...(process.env.BENCH_ORDERS_DB_POOL_MAX ? { ORDERS_DB_POOL_MAX: process.env.BENCH_ORDERS_DB_POOL_MAX } : {}),
      }),
      // As deployed: the order endpoints straight to the orders subgraph. BENCH_ORDERS_VIA_GATEWAY=1
      // sends them through the gateway instead (ORDERS_URL unset), for comparison.
      'rest-edge': ({ subgraphs }) => (process.env.BENCH_ORDERS_VIA_GATEWAY === '1' ? {} : { ORDERS_URL: `${subgraphs.orders.url}/graphql` }),
    },
  });
  const channel = await createBenchChannel(stack);
  const gatewayUrl = `${stack.gateway.url}/graphql`;
  const merchant = signIdentity({ kind: 'backoffice', teamCode: channel.teamCode, userId: 'bench@merchant' }, { ...stack.jwt, expiresInSeconds: 3600 });

  // The catalogue: ten products in one warehouse with stock no run can exhaust (1 000 000 each, one per order), one shipping method.
  const { createWarehouse } = await graphql(gatewayUrl, merchant, 'mutation($i: CreateWarehouseInput!) { createWarehouse(input: $i) { id } }', {
    i: { code: 'main', name: 'Main warehouse', countryCode: 'GB' },
  });
  const catalogue = Array.from({ length: PRODUCTS }, (_, i) => `BENCH-${i + 1}`);
  const skus = catalogue.slice(0, LINES);
  const productUuids = [];
  for (const sku of catalogue) {
    const { createProduct } = await graphql(gatewayUrl, merchant, 'mutation($i: CreateProductInput!) { createProduct(input: $i) { uuid } }', {
      i: { sku, name: `Bench product ${sku}` },
    });
    productUuids.push(createProduct.uuid);
  }
  // The stock service learns the products from the catalog's events (over Kafka): retried until it knows each.
  for (const productUuid of productUuids) {
    await retried(() =>
      graphql(gatewayUrl, merchant, 'mutation($i: SetStockInput!) { setStock(input: $i) { onHand } }', {
        i: { productUuid, warehouseId: createWarehouse.id, quantity: 1_000_000, reason: 'bench' },
      }),
    );
  }
  await graphql(gatewayUrl, merchant, 'mutation($i: CreateShippingMethodInput!) { createShippingMethod(input: $i) { code } }', {
    i: { code: 'std', name: 'Standard', carrier: 'Royal Mail' },
  });
  ctx.log(`channel ${channel.channelId}: ${PRODUCTS} products stocked in warehouse "main", shipping method "std"${PRODUCTS > LINES ? `; each order names ${LINES} of them from a random start (BENCH_ORDERS_PRODUCTS)` : ''}`);

  const base = `/v1/channels/${channel.channelId}`;
  const job = {
    url: `${stack.edge.url}${base}/orders`,
    basePath: base,
    token: channel.apiToken,
    skus,
    catalogue,
    orderNumberPrefix: `bench-${randomBytes(4).toString('hex')}`,
    connections: plan.connections,
    warmupSeconds: plan.warmupSeconds,
    durationSeconds: plan.durationSeconds,
  };
  await untilOrdersServiceReady(ctx, job);
  ctx.log('the orders service knows the team, the products and the shipping method (a probe order was created and confirmed)');

  const watch = () => ({
    'rest-edge': [stack.edge.pid],
    gateway: [stack.gateway.pid],
    orders: [stack.subgraphs.orders.pid],
    stock: [stack.subgraphs.stock.pid],
    accounts: [stack.subgraphs.accounts.pid],
    catalog: [stack.subgraphs.catalog.pid],
    postgres: pidsByCommand('postgres', ` ${stack.db.name} `),
    redis: pidsByCommand('redis-server'),
  });
  const load = async (j) => {
    await ctx.waitForQuietMachine();
    return runLoad(j, { watch, register: (child) => ctx.processes.track(child), worker: THIS_FILE });
  };

  ctx.log(`order endpoints: ${process.env.BENCH_ORDERS_VIA_GATEWAY === '1' ? 'edge -> gateway -> orders (BENCH_ORDERS_VIA_GATEWAY=1)' : 'edge -> orders subgraph (ORDERS_URL, as deployed)'}`);
  ctx.log(`edge, saturated: ${plan.connections} connections, ${plan.warmupSeconds} s warm-up, ${plan.durationSeconds} s measured`);
  const max = await load(job);
  ctx.log(`  ${num(max.orders.ordersPerSecond)} orders/s, create p50 ${ms(max.orders.create.p50)} p99 ${ms(max.orders.create.p99)}, confirm p50 ${ms(max.orders.confirm.p50)} p99 ${ms(max.orders.confirm.p99)}${failures(max)}`);

  if (max.orders.orders === 0) {
    throw new Error(
      `no order was created and confirmed in the window (${JSON.stringify(max.statusCounts)}); requests that never answered point at a ` +
        `hang upstream: see the logs of rest-edge, gateway and orders in ${path.relative(root, ctx.runDir)}/`,
    );
  }
  const halfRate = max.orders.ordersPerSecond / 2;
  ctx.log(`edge at half that rate: ${num(halfRate, 1)} orders/s evenly spaced (${num(halfRate * 2, 1)} requests/s), at most ${plan.connections} in flight`);
  await sleep(1000);
  const half = await load({ ...job, orderRate: Math.max(1, halfRate) });
  ctx.log(`  ${num(half.orders.ordersPerSecond)} orders/s, create p99 ${ms(half.orders.create.p99)}, confirm p99 ${ms(half.orders.confirm.p99)}, ${half.orders.late} started late${failures(half)}`);

  // pgbench last: its hundred thousand orders stay in the orders tables, and the edge's windows
  // should not run against them.
  ctx.log(`pgbench: ${plan.pgbenchClients} clients, ${plan.pgbenchSeconds} s, the same order and ${LINES} lines inserted directly`);
  await ctx.waitForQuietMachine();
  const pgbench = await runPgbench(ctx, stack.db.url, channel, skus, plan);
  ctx.log(`  ${num(pgbench.tps)} transactions/s, mean latency ${ms(pgbench.meanLatencyMs)}`);

  const figures = {
    edgeOrdersPerSecond: max.orders.ordersPerSecond,
    pgbenchTransactionsPerSecond: pgbench.tps,
    ratioToPgbench: ratio(max.orders.ordersPerSecond, pgbench.tps),
    halfRateOrdersPerSecond: half.orders.ordersPerSecond,
    halfRateP99Ms: Math.max(half.orders.create.p99, half.orders.confirm.p99),
  };
  const clean = [max, half].every((w) => w.non2xx + w.errors + w.timeouts === 0);
  const judged = !options.quick && !options.profile;
  const targets = [
    {
      name: 'edge orders/s over pgbench transactions/s',
      target: `>= ${TARGETS.minRatioToPgbench.toFixed(2)}`,
      measured: figures.ratioToPgbench,
      met: figures.ratioToPgbench >= TARGETS.minRatioToPgbench,
      format: (v) => num(v, 3),
    },
    {
      name: 'p99 of each request at half the maximum rate',
      target: `< ${TARGETS.maxP99AtHalfRateMs} ms`,
      measured: figures.halfRateP99Ms,
      met: figures.halfRateP99Ms < TARGETS.maxP99AtHalfRateMs,
      format: (v) => ms(v),
    },
  ];
  ctx.print(report({ max, half, pgbench, figures, targets, plan, judged, clean }));

  let profiles;
  if (options.profile) {
    // Profiles are written when each process exits; each window is summarised on its own (a
    // request costs more at half rate, where less is shared: relay batches, consumer runs).
    await ctx.processes.stopAll();
    const dir = path.join(ctx.runDir, 'profiles');
    profiles = {};
    for (const svc of ['rest-edge', 'gateway', 'orders', 'stock']) {
      const file = existsSync(dir) ? readdirSync(dir).find((f) => f.startsWith(svc)) : undefined;
      if (!file) continue;
      profiles[svc] = {};
      for (const [name, window] of [['saturated', max.window], ['half rate', half.window]]) {
        profiles[svc][name] = summarizeCpuProfile(path.join(dir, file), root, 20, [window]);
        ctx.print(profileReport(svc, name, profiles[svc][name], root));
      }
    }
  }

  return {
    wiring: {
      processes: ['accounts', 'catalog', 'stock', 'orders', 'gateway', 'rest-edge', 'load generator (autocannon)', 'pgbench'],
      orderEndpoints: process.env.BENCH_ORDERS_VIA_GATEWAY === '1' ? 'edge -> gateway -> orders' : 'edge -> orders (ORDERS_URL)',
      eventBus: 'kafka',
      rateLimitStore: 'redis',
      database: 'fresh bench database, every service migrated with its dist/migrate.js',
    },
    plan,
    windows: { max, half },
    pgbench,
    figures,
    targets: targets.map(({ format: _format, ...t }) => ({ ...t, judged })),
    allResponses2xx: clean,
    targetsMet: judged ? targets.every((t) => t.met) && clean : undefined,
    ...(profiles ? { profiles } : {}),
  };
}

function profileReport(svc, windowName, summary, root) {
  return [
    formatTable(
      ['origin', 'self ms', '% of busy'],
      summary.origins.map((o) => [o.name, num(o.ms), num(o.percentOfBusy, 1)]),
      `CPU profile of ${svc} during the ${windowName} window: ${num(summary.busyMs)} ms busy of ${num(summary.totalMs)} ms (${path.relative(root, summary.file)})`,
    ),
    formatTable(['function (self time)', 'self ms', '% of busy'], summary.functions.map((f) => [f.name, num(f.ms), num(f.percentOfBusy, 1)])),
    formatTable(
      ['function (including callees; synchronous part only)', 'total ms', '% of busy'],
      summary.inclusive.map((f) => [f.name, num(f.ms), num(f.percentOfBusy, 1)]),
    ),
  ].join('\n\n');
}

/** Retries `fn` every 200 ms for up to a minute (for facts that arrive by events). */
async function retried(fn) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

function failures(w) {
  const bad = w.non2xx + w.errors + w.timeouts;
  return bad ? `, ${bad} failed (${JSON.stringify(w.statusCounts)})` : '';
}

/** The order the load sends: 10 lines, one per product, and a full address. */
function orderBody(orderNumber, skus) {
  return JSON.stringify({
    orderNumber,
    orderLines: skus.map((sku, i) => ({ lineNumber: i + 1, product: { sku }, quantity: 1 })),
    shippingDetails: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      address1: '1 Park Row',
      city: 'Leeds',
      postalCode: 'LS1 5HD',
      country: { name: 'United Kingdom', code: 'GB' },
      email: 'ada@example.com',
    },
  });
}

/**
 * The orders service learns the team, channel, products and shipping method from events: a probe
 * order is created (strictSkus, so every SKU must match) and confirmed until both succeed.
 */
async function untilOrdersServiceReady(ctx, job) {
  const deadline = Date.now() + 120_000;
  let last = '';
  for (let attempt = 1; ; attempt++) {
    const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ ...JSON.parse(orderBody(`${job.orderNumberPrefix}-probe-${attempt}`, job.skus)), strictSkus: true });
    const created = await fetch(job.url, { method: 'POST', headers, body });
    const createdText = await created.text();
    if (created.status === 201) {
      const { uuid } = JSON.parse(createdText);
      const confirmed = await fetch(`${new URL(job.url).origin}${job.basePath}/orders/${uuid}/confirm`, { method: 'PUT', headers, body: '{"shippingMethodCode":"std"}' });
      const confirmedText = await confirmed.text();
      if (confirmed.status === 202) return;
      last = `confirm answered ${confirmed.status}: ${confirmedText.slice(0, 300)}`;
    } else {
      last = `create answered ${created.status}: ${createdText.slice(0, 300)}`;
    }
    if (Date.now() > deadline) throw new Error(`the orders service did not become ready: ${last}`);
    if (attempt % 20 === 0) ctx.log(`  still waiting for the orders service's read models (${last})`);
    await sleep(250);
  }
}

/**
 * pgbench at `clients` clients: per transaction, the order row (with the shipping details the
 * edge's body has) and its 10 lines with their matched product uuids, as the orders service
 * writes them, on the same database.
 */
async function runPgbench(ctx, databaseUrl, channel, skus, plan) {
  const [products] = await psqlJson(
    databaseUrl,
    `SELECT json_agg(json_build_object('sku', sku, 'uuid', uuid) ORDER BY sku) FROM orders.product WHERE team_code = '${channel.teamCode}'`,
  );
  const uuidOf = new Map(products.map((p) => [p.sku, p.uuid]));
  const values = skus.map((sku, i) => `(:order_uuid, ${i + 1}, '${sku}', 1, '${uuidOf.get(sku)}')`).join(',\n  ');
  const script = `BEGIN;
INSERT INTO orders.orders (uuid, team_code, channel_id, origin, order_number, print_trail_order_number, status, fulfillable_from,
  ship_first_name, ship_last_name, ship_address1, ship_city, ship_postal_code, ship_country_name, ship_country_code, ship_email)
VALUES (gen_random_uuid(), '${channel.teamCode}', '${channel.channelId}', 'api', 'pgbench-' || gen_random_uuid(), 'PT-' || gen_random_uuid(), 'draft', now(),
  'Ada', 'Lovelace', '1 Park Row', 'Leeds', 'LS1 5HD', 'United Kingdom', 'GB', 'ada@example.com')
RETURNING uuid AS order_uuid \\gset
INSERT INTO orders.order_line (order_uuid, line_number, sku, quantity, product_uuid) VALUES
  ${values};
END;
`;
  const file = path.join(ctx.runDir, 'orders-insert.pgbench.sql');
  writeFileSync(file, script);
  const { stdout } = await execFileAsync(
    'pgbench',
    ['--no-vacuum', '--client', String(plan.pgbenchClients), '--jobs', '2', '--time', String(plan.pgbenchSeconds), '--protocol', 'prepared', '--file', file, databaseUrl],
    { timeout: (plan.pgbenchSeconds + 120) * 1000, maxBuffer: 1 << 20 },
  );
  writeFileSync(path.join(ctx.runDir, 'pgbench.out'), stdout);
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1] ?? /tps = ([\d.]+)/.exec(stdout)?.[1]);
  const meanLatencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  if (!(tps > 0)) throw new Error(`could not read pgbench's rate:\n${stdout}`);
  if (failed > 0) throw new Error(`pgbench had ${failed} failed transactions:\n${stdout}`);
  return { clients: plan.pgbenchClients, seconds: plan.pgbenchSeconds, tps, meanLatencyMs, transactions, script: path.basename(file) };
}

async function psqlJson(databaseUrl, sql) {
  const { stdout } = await execFileAsync('psql', ['--no-psqlrc', '--tuples-only', '--no-align', '--command', sql, databaseUrl]);
  return [JSON.parse(stdout.trim())];
}

function report({ max, half, pgbench, figures, targets, plan, judged, clean }) {
  const out = [];
  const row = (label, w) => [
    label,
    num(w.orders.ordersPerSecond),
    ms(w.orders.create.p50),
    ms(w.orders.create.p99),
    ms(w.orders.confirm.p50),
    ms(w.orders.confirm.p99),
    ms(w.orders.order.p50),
    ms(w.orders.order.p99),
    num(w.orders.orders),
    num(w.non2xx + w.errors + w.timeouts),
    pct(w.otherCpuPercent),
  ];
  out.push(
    formatTable(
      ['edge: POST /orders + confirm', 'orders/s', 'create p50', 'create p99', 'confirm p50', 'confirm p99', 'order p50', 'order p99', 'orders', 'failed', 'other CPU'],
      [row(`saturated, ${plan.connections} connections`, max), row(`half rate (${num(figures.edgeOrdersPerSecond / 2, 1)}/s)`, half)],
      `${plan.durationSeconds} s measured after ${plan.warmupSeconds} s warm-up; "order" = create and confirm back to back`,
    ),
  );
  const procs = Object.keys(max.cpuPercent);
  out.push(
    formatTable(
      ['CPU ms per order', ...procs],
      [max, half].map((w, i) => [i === 0 ? 'saturated' : 'half rate', ...procs.map((p) => (w.orders.orders ? num(((w.cpuPercent[p] / 100) * w.durationSeconds * 1000) / w.orders.orders, 2) : '-'))]),
    ),
  );
  out.push(
    formatTable(
      ['pgbench: direct insert of the order and its lines', 'value'],
      [
        ['clients', String(pgbench.clients)],
        ['transactions/s', num(pgbench.tps)],
        ['mean latency', ms(pgbench.meanLatencyMs)],
        ['transactions', num(pgbench.transactions)],
      ],
    ),
  );
  out.push(
    formatTable(
      ['comparison', 'value'],
      [
        ['edge orders/s', num(figures.edgeOrdersPerSecond)],
        ['pgbench transactions/s', num(figures.pgbenchTransactionsPerSecond)],
        ['ratio', times(figures.ratioToPgbench, 3)],
      ],
    ),
  );
  out.push(
    formatTable(
      ['target', 'wanted', 'measured', 'met'],
      targets.map((t) => [t.name, t.target, t.format(t.measured), judged ? yesNo(t.met) : 'not judged (quick/profiled run)']),
    ),
  );
  if (!clean) out.push('WARNING: some responses were not 2xx; see "failed" above and the logs.');
  out.push('"other CPU": what processes outside this run used meanwhile (100 % = one core).');
  return out.join('\n\n');
}

// --- the load worker (this file, forked by lib/load.mjs's runLoad with `worker`) -------------

/**
 * Speaks lib/load-worker.mjs's messages: one job in; `measuring` when the measured window starts;
 * `result` with the window's figures (plus `orders`: rates and latencies per request kind and per
 * order) at its end.
 */
function runLoadWorker() {
  process.once('message', async (job) => {
    try {
      const autocannon = (await import('autocannon')).default;
      // A fixed order rate is paced here, evenly; without one, autocannon runs the connections flat out.
      const run = job.orderRate ? (seconds, record) => runPacedOrders(job, seconds, record) : (seconds, record) => runOrders(autocannon, job, seconds, record);
      if (job.warmupSeconds > 0) await run(job.warmupSeconds, false);
      process.send({ kind: 'measuring' });
      const r = await run(job.durationSeconds, true);
      const seconds = r.result.duration;
      process.send({
        kind: 'result',
        result: {
          durationSeconds: seconds,
          requests: r.result.requests.total,
          ok: r.create.length + r.confirm.length,
          non2xx: r.result.non2xx,
          errors: r.result.errors,
          timeouts: r.result.timeouts,
          statusCounts: r.statusCounts,
          requestsPerSecond: (r.create.length + r.confirm.length) / seconds,
          latencyMs: summarizeLatencies(Float64Array.from([...r.create, ...r.confirm])),
          orders: {
            // Paced windows: orders whose slot found every connection busy (they started late).
            late: r.result.late ?? 0,
            orders: r.order.length,
            ordersPerSecond: r.order.length / seconds,
            create: summarizeLatencies(Float64Array.from(r.create)),
            confirm: summarizeLatencies(Float64Array.from(r.confirm)),
            order: summarizeLatencies(Float64Array.from(r.order)),
          },
        },
      });
    } catch (err) {
      process.send({ kind: 'error', message: err instanceof Error ? err.stack : String(err) });
    } finally {
      process.disconnect();
    }
  });
}

/**
 * Orders arriving at a fixed rate, evenly spaced (one every 1/orderRate s), each a create then its
 * confirm, with at most `connections` in flight over as many keep-alive connections; an order whose
 * slot comes while all are busy starts when one frees (counted as `late`). autocannon's own
 * `overallRate` is not used for this: it sends each second's quota back to back and then idles,
 * so a "half rate" window would really be a burst of every connection once a second.
 * Latencies from each request's sending, as runOrders measures them.
 */
async function runPacedOrders(job, seconds, record) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections });
  const origin = new URL(job.url);
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json', accept: 'application/json' };
  const create = [];
  const confirm = [];
  const order = [];
  const statusCounts = {};
  let requests = 0;
  let non2xx = 0;
  let errors = 0;
  let late = 0;
  let seq = 0;
  const send = (method, pathname, body) =>
    new Promise((resolve) => {
      const started = performance.now();
      requests++;
      const req = http.request(new URL(pathname, origin), { method, headers, agent, timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          statusCounts[res.statusCode] = (statusCounts[res.statusCode] ?? 0) + 1;
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
          resolve({ status: res.statusCode, text, ms: performance.now() - started });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors++;
        resolve({ status: 0, text: '', ms: performance.now() - started });
      });
      req.end(body);
    });
  const placeOne = async () => {
    const created = await send('POST', origin.pathname, orderBody(`${job.orderNumberPrefix}-${process.pid}-${record ? 'pm' : 'pw'}-${++seq}`, orderSkus(job.catalogue)));
    if (created.status !== 201) return;
    if (record) create.push(created.ms);
    const { uuid } = JSON.parse(created.text);
    const confirmed = await send('PUT', `${job.basePath}/orders/${uuid}/confirm`, '{"shippingMethodCode":"std"}');
    if (confirmed.status !== 202 || !record) return;
    confirm.push(confirmed.ms);
    order.push(created.ms + confirmed.ms);
  };
  const interval = 1000 / job.orderRate;
  const t0 = performance.now();
  const inFlight = new Set();
  for (let i = 0; i * interval < seconds * 1000; i++) {
    const wait = t0 + i * interval - performance.now();
    if (wait >= 1) await sleep(wait);
    if (inFlight.size >= job.connections) {
      late++;
      await Promise.race(inFlight);
    }
    const p = placeOne().finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  agent.destroy();
  const duration = (performance.now() - t0) / 1000;
  return { result: { duration, requests: { total: requests }, non2xx, errors, timeouts: 0, late }, create, confirm, order, statusCounts };
}

/**
 * Each connection runs create -> confirm -> create ...: the confirm is built from the create's
 * answer (skipped, restarting the sequence, when the create failed). Latencies in fractional
 * milliseconds from autocannon's response event (from sending to the answer, so a rate-limited
 * window's waits between requests are not counted); an order's is its create's plus its confirm's.
 */
function runOrders(autocannon, job, seconds, record) {
  const create = [];
  const confirm = [];
  const order = [];
  const statusCounts = {};
  let seq = 0;
  const origin = new URL(job.url);
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json', accept: 'application/json' };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin.origin,
        connections: job.connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        initialContext: {},
        requests: [
          {
            method: 'POST',
            path: origin.pathname,
            headers,
            setupRequest: (req) => ({ ...req, body: orderBody(`${job.orderNumberPrefix}-${process.pid}-${record ? 'm' : 'w'}-${++seq}`, orderSkus(job.catalogue)) }),
            onResponse: (status, body, context) => {
              if (status === 201) context.uuid = JSON.parse(body).uuid;
            },
          },
          {
            method: 'PUT',
            headers,
            setupRequest: (req, context) =>
              context.uuid ? { ...req, path: `${job.basePath}/orders/${context.uuid}/confirm`, body: '{"shippingMethodCode":"std"}' } : null,
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve({ result, create, confirm, order, statusCounts })),
    );
    // The create each connection is waiting to confirm (one request at a time per connection).
    const pendingCreate = new WeakMap();
    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode === 201) pendingCreate.set(client, responseTime);
      if (!record) return;
      if (statusCode === 201) create.push(responseTime);
      else if (statusCode === 202) {
        confirm.push(responseTime);
        const created = pendingCreate.get(client);
        if (created !== undefined) order.push(created + responseTime);
        pendingCreate.delete(client);
      }
    });
  });
}
