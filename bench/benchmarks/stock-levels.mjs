// Issue 3: GET /stock-levels for a team of 100 000 products, through the REST edge.
//
// Production wiring, each in its own process from its dist/main.js: accounts, catalog and stock
// subgraphs (fresh, migrated bench database; outboxes relayed to Kafka), the gateway, and two REST
// edges that differ only in where they read the stock feed's pages:
//   edge -> stock:            STOCK_URL set, pages straight from the stock subgraph (the default in deploy/)
//   edge -> gateway -> stock: STOCK_URL unset, pages through the gateway
// The team's products are inserted with SQL (INSERT ... SELECT generate_series) into the catalog's
// and the stock service's tables alike, as their events would have left them; the set-up bypasses
// the use cases, the measured path does not.
//
// Each route: a warm-up request, then RUNS requests one after another, each read to its last byte
// over a kept-alive connection (and checked once: one JSON document, every product once). Next to
// it the equivalent SQL (the same rows: sku and rule S1 figure of every non-deleted product of the
// team, using the stock service's own figure expression) run with psql, timed by psql's \timing.
// Memory: VmRSS of the edge and the stock service sampled every few milliseconds during each
// request (and VmHWM, reset before it through /proc/<pid>/clear_refs), against their RSS just
// before.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { cpuBetween, cpuSnapshot, pidsByCommand } from '../lib/cpu.mjs';
import { KAFKA_BROKERS, REDIS_URL } from '../lib/infra.mjs';
import { jwtEnv } from '../lib/jwt.mjs';
import { baseEnv, freePort } from '../lib/processes.mjs';
import { createBenchChannel, distFile, startStack } from '../lib/stack.mjs';
import { ratio } from '../lib/stats.mjs';
import { formatTable, ms, num, times, yesNo } from '../lib/table.mjs';

const exec = promisify(execFile);

export const name = 'stock-levels';
export const description = 'GET /stock-levels for 100 000 products through the REST edge vs the same SQL in psql (issue 3)';

/** Targets of issue 3. */
export const TARGETS = {
  /** Time to last byte of GET /stock-levels over the time of the equivalent SQL. */
  maxTimeRatio: 3,
  /** Resident memory growth of the edge and of the stock service while serving it. */
  maxRssGrowthMiB: 100,
};

const PLAN = {
  full: { products: 100_000, deleted: 1_000, otherTeamProducts: 20_000, runs: 5 },
  quick: { products: 10_000, deleted: 100, otherTeamProducts: 1_000, runs: 2 },
};

const ROUTES = ['direct', 'gateway'];
const ROUTE_LABEL = { direct: 'edge -> stock subgraph', gateway: 'edge -> gateway -> stock' };

/** @param {import('../lib/context.mjs').BenchContext} ctx */
export async function run(ctx) {
  const { root, options } = ctx;
  const plan = options.quick ? PLAN.quick : PLAN.full;
  const require = createRequire(import.meta.url);
  const { STOCK_FIGURE_SQL } = require(distFile(root, 'services/stock/dist/index.js'));

  // The stack's own edge reads the feed through the gateway (no STOCK_URL).
  const stack = await startStack(ctx, { subgraphs: ['accounts', 'catalog', 'stock'], edge: true });
  const stock = stack.subgraphs.stock;
  const gateway = stack.gateway;
  const edges = {
    gateway: stack.edge,
    direct: await ctx.processes.startService({
      name: 'rest-edge-direct',
      script: distFile(root, 'services/rest-edge/dist/main.js'),
      port: await freePort(),
      env: {
        ...baseEnv(),
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        ...jwtEnv(stack.jwt),
        EVENT_BUS: 'kafka',
        KAFKA_BROKERS: KAFKA_BROKERS.join(','),
        KAFKA_TOPIC_PREFIX: stack.kafkaPrefix,
        GATEWAY_URL: `${gateway.url}/graphql`,
        ACCOUNTS_URL: `${stack.subgraphs.accounts.url}/graphql`,
        STOCK_URL: `${stock.url}/graphql`,
        JWT_SIGNING_KEY: stack.jwt.key,
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL,
        REDIS_KEY_PREFIX: stack.redisPrefix,
        RATE_LIMIT_PER_TOKEN: '1000000000',
      },
    }),
  };

  const channel = await createBenchChannel(stack);
  ctx.log(`channel ${channel.channelId}; inserting ${num(plan.products)} live products (+${num(plan.deleted)} deleted, +${num(plan.otherTeamProducts)} of another team)`);
  const seeded = await seedProducts(stack.db.url, channel.teamCode, plan);
  ctx.log(`seeded in ${ms(seeded.ms)}: ${num(seeded.stockRows)} stock rows over ${seeded.warehouses} warehouses`);

  // The equivalent SQL: every non-deleted product of the team, its SKU and its rule S1 figure.
  const sql = `SELECT p.sku, ${STOCK_FIGURE_SQL.replace(/\s+/g, ' ')} AS stock
    FROM (SELECT ARRAY(SELECT id FROM stock.warehouse WHERE team_code = '${channel.teamCode}' AND enabled) AS ids) e, stock.product p
    WHERE p.team_code = '${channel.teamCode}' AND NOT p.deleted ORDER BY p.uuid`;
  const sqlFile = `${ctx.runDir}/stock-levels.sql`;
  writeFileSync(sqlFile, `\\timing on\n\\o /dev/null\n${sql};\n`);
  const sqlCheck = await psqlRows(stack.db.url, sql);
  if (sqlCheck !== plan.products) throw new Error(`the SQL returned ${sqlCheck} rows, expected ${plan.products}`);

  const url = (route) => `${edges[route].url}/v1/channels/${channel.channelId}/stock-levels`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  ctx.onCleanup('close the HTTP agent', async () => agent.destroy());
  for (const route of ROUTES) await checkDocument(url(route), channel.apiToken, agent, plan.products, route);
  ctx.log('both edges answer one JSON document with every product once (checked before measuring)');

  const watched = (route) => ({ edge: edges[route].pid, stock: stock.pid, gateway: gateway.pid });
  const results = { sql: [], direct: [], gateway: [] };
  // Warm-up: one of each, not counted.
  await psqlTiming(stack.db.url, sqlFile);
  for (const route of ROUTES) await timeRequest(url(route), channel.apiToken, agent, watched(route), stack.db.name);

  for (let i = 0; i < plan.runs; i++) {
    await ctx.waitForQuietMachine();
    results.sql.push(await psqlTiming(stack.db.url, sqlFile));
    for (const route of ROUTES) {
      await sleep(500);
      results[route].push(await timeRequest(url(route), channel.apiToken, agent, watched(route), stack.db.name));
    }
    ctx.log(
      `run ${i + 1}/${plan.runs}: SQL ${ms(results.sql.at(-1).ms)}, ` +
        ROUTES.map((r) => `${ROUTE_LABEL[r]} ${ms(results[r].at(-1).lastByteMs)} (edge +${num(results[r].at(-1).growthMiB.edge, 1)} MiB, stock +${num(results[r].at(-1).growthMiB.stock, 1)} MiB)`).join(', '),
    );
  }

  const figures = summarize(results);
  const judged = !options.quick && !options.profile;
  const targets = [
    {
      name: 'time to last byte / SQL time (edge -> stock, median)',
      target: `<= ${TARGETS.maxTimeRatio}x`,
      measured: figures.direct.ratioToSql,
      met: figures.direct.ratioToSql <= TARGETS.maxTimeRatio,
      format: (v) => times(v),
    },
    {
      name: 'edge RSS growth while serving (largest)',
      target: `< ${TARGETS.maxRssGrowthMiB} MiB`,
      measured: figures.direct.maxGrowthMiB.edge,
      met: figures.direct.maxGrowthMiB.edge < TARGETS.maxRssGrowthMiB,
      format: (v) => `${num(v, 1)} MiB`,
    },
    {
      name: 'stock service RSS growth while serving (largest)',
      target: `< ${TARGETS.maxRssGrowthMiB} MiB`,
      measured: figures.direct.maxGrowthMiB.stock,
      met: figures.direct.maxGrowthMiB.stock < TARGETS.maxRssGrowthMiB,
      format: (v) => `${num(v, 1)} MiB`,
    },
  ];
  ctx.print(report(figures, targets, { plan, judged }));

  return {
    wiring: {
      processes: ['accounts', 'catalog', 'stock', 'gateway', 'rest-edge (through the gateway)', 'rest-edge-direct (STOCK_URL)', 'psql'],
      eventBus: 'kafka',
      data: `${plan.products} live products (${plan.deleted} deleted more, ${plan.otherTeamProducts} of another team), inserted with SQL`,
      sql,
    },
    plan,
    runs: results,
    figures,
    targets: targets.map(({ format: _f, ...t }) => ({ ...t, judged })),
    targetsMet: judged ? targets.every((t) => t.met) : undefined,
  };
}

/**
 * One team's catalogue, as the catalog's and the stock service's tables hold it after the catalog
 * events: the same uuids in both; a twentieth without SKU; all three active states; print on
 * demand enabled on a seventh, approved on half of those; 1 % more deleted; stock in two enabled
 * warehouses and a disabled one (every 25th product sold out everywhere). Another team beside it,
 * so the feed's index does its job.
 */
async function seedProducts(databaseUrl, teamCode, plan) {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const other = `${teamCode}x`;
    await client.query('BEGIN');
    await client.query(`CREATE TEMP TABLE bench_product ON COMMIT DROP AS
      SELECT gen_random_uuid() AS uuid, $1::text AS team_code, n, n > $2::int AS deleted
        FROM generate_series(1, $2::int + $3::int) n
      UNION ALL
      SELECT gen_random_uuid(), $4::text, n, false FROM generate_series(1, $5::int) n`, [teamCode, plan.products, plan.deleted, other, plan.otherTeamProducts]);
    await client.query(`INSERT INTO catalog.product (uuid, team_code, sku, name, active_state, pod_enabled, pod_approved, version, created_at, updated_at, deleted_at)
      SELECT uuid, team_code, CASE WHEN n % 20 = 0 THEN NULL ELSE 'BENCH-' || n END, 'Bench product ' || n,
             CASE n % 10 WHEN 0 THEN 'inactive' WHEN 1 THEN 'pre-order' ELSE 'active' END,
             n % 7 = 0, n % 14 = 0, CASE WHEN deleted THEN 2 ELSE 1 END,
             now() - make_interval(secs => ($1::int - n)), now(), CASE WHEN deleted THEN now() END
        FROM bench_product`, [plan.products + plan.deleted]);
    await client.query(`INSERT INTO stock.product (uuid, team_code, sku, active_state, pod_enabled, pod_approved, deleted, version)
      SELECT uuid, team_code, CASE WHEN n % 20 = 0 THEN NULL ELSE 'BENCH-' || n END,
             CASE n % 10 WHEN 0 THEN 'inactive' WHEN 1 THEN 'pre-order' ELSE 'active' END,
             n % 7 = 0, n % 14 = 0, deleted, CASE WHEN deleted THEN 2 ELSE 1 END
        FROM bench_product`);
    await client.query(`INSERT INTO stock.warehouse (id, team_code, code, name, country_code, enabled)
      SELECT gen_random_uuid(), t.team_code, w.code, w.name, w.country, w.enabled
        FROM (VALUES ($1::text), ($2::text)) t(team_code),
             (VALUES ('main', 'Main', 'GB', true), ('second', 'Second', 'NL', true), ('closed', 'Closed', 'US', false)) w(code, name, country, enabled)`, [teamCode, other]);
    const { rowCount } = await client.query(`INSERT INTO stock.stock_level (product_uuid, warehouse_id, team_code, on_hand)
      SELECT p.uuid, w.id, p.team_code, CASE WHEN p.n % 25 = 0 THEN 0 ELSE (p.n * 7 + length(w.code)) % 50 END
        FROM bench_product p JOIN stock.warehouse w ON w.team_code = p.team_code
       WHERE w.code <> 'closed' OR p.n % 3 = 0`);
    await client.query('COMMIT');
    // Fresh statistics and visibility map, as autovacuum would leave them (index-only scans).
    await client.query('VACUUM ANALYZE catalog.product, stock.product, stock.warehouse, stock.stock_level');
    return { ms: performance.now() - started, stockRows: rowCount, warehouses: 3 };
  } finally {
    await client.end();
  }
}

async function psqlRows(databaseUrl, sql) {
  const { stdout } = await exec('psql', ['-X', '-q', '-A', '-t', '-d', databaseUrl, '-c', `SELECT count(*) FROM (${sql}) x`], {
    env: baseEnv(),
    maxBuffer: 1 << 20,
  });
  return Number(stdout.trim());
}

/** The SQL run by psql, rows fetched and discarded; psql's own \timing, and the whole process's wall time. */
async function psqlTiming(databaseUrl, sqlFile) {
  const started = performance.now();
  const { stdout } = await exec('psql', ['-X', '-q', '-A', '-t', '-d', databaseUrl, '-f', sqlFile], { env: baseEnv(), maxBuffer: 1 << 20 });
  const wallMs = performance.now() - started;
  const timing = /Time: ([\d.]+) ms/.exec(stdout);
  if (!timing) throw new Error(`psql printed no timing: ${stdout.slice(0, 300)}`);
  return { ms: Number(timing[1]), wallMs };
}

/** Resident set and its high-water mark of a process, in MiB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
}

/** Resets VmHWM to the current RSS (Linux: write 5 to clear_refs); false when not permitted. */
function resetHighWaterMark(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * One GET read to its last byte, with the memory of the watched processes sampled meanwhile.
 * @param {Record<string, number>} watched name -> pid
 */
async function timeRequest(url, token, agent, watched, dbName) {
  const before = Object.fromEntries(Object.entries(watched).map(([n, pid]) => [n, memoryOf(pid)]));
  const hwmReset = Object.values(watched).every(resetHighWaterMark);
  const peak = Object.fromEntries(Object.entries(before).map(([n, m]) => [n, m.rssMiB]));
  const sample = () => {
    for (const [n, pid] of Object.entries(watched)) peak[n] = Math.max(peak[n], memoryOf(pid).rssMiB);
  };
  const cpuGroups = { ...Object.fromEntries(Object.entries(watched).map(([n, pid]) => [n, [pid]])), postgres: pidsByCommand('postgres', ` ${dbName} `) };
  const cpuBefore = cpuSnapshot(cpuGroups);
  const sampler = setInterval(sample, 5);
  const started = performance.now();
  let firstByteMs = NaN;
  let bytes = 0;
  const status = await new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on('data', (chunk) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
      });
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  const lastByteMs = performance.now() - started;
  clearInterval(sampler);
  sample();
  // Backends opened during the request (a pool reconnecting after idling) count whole.
  const cpu = cpuBetween(cpuBefore, cpuSnapshot({ ...cpuGroups, postgres: pidsByCommand('postgres', ` ${dbName} `) }));
  if (status !== 200) throw new Error(`${url} answered ${status}`);
  const after = Object.fromEntries(Object.entries(watched).map(([n, pid]) => [n, memoryOf(pid)]));
  const growthMiB = {};
  for (const n of Object.keys(watched)) {
    // The largest of the sampled peak and the kernel's own high-water mark since the reset.
    const top = Math.max(peak[n], hwmReset ? after[n].hwmMiB : -Infinity);
    growthMiB[n] = top - before[n].rssMiB;
  }
  return {
    status,
    bytes,
    firstByteMs,
    lastByteMs,
    rssBeforeMiB: Object.fromEntries(Object.entries(before).map(([n, m]) => [n, m.rssMiB])),
    peakRssMiB: Object.fromEntries(Object.keys(watched).map((n) => [n, before[n].rssMiB + growthMiB[n]])),
    growthMiB,
    highWaterMarkReset: hwmReset,
    cpuMs: Object.fromEntries(Object.entries(cpu).map(([n, s]) => [n, s * 1000])),
  };
}

/** Once, outside the timings: the body is one JSON document listing every product once. */
async function checkDocument(url, token, agent, expectedCount, route) {
  const text = await new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${route}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const body = JSON.parse(text);
  if (!Array.isArray(body.data) || body.data.length !== expectedCount) throw new Error(`${route}: ${body.data?.length} entries, expected ${expectedCount}`);
  const skus = body.data.map((l) => l.sku).filter((s) => s !== null);
  if (new Set(skus).size !== skus.length) throw new Error(`${route}: a SKU is listed twice`);
  if (!body.data.every((l) => Number.isInteger(l.stock) && l.stock >= 0)) throw new Error(`${route}: a stock figure is not a non-negative integer`);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};

function summarize(results) {
  const sqlMs = median(results.sql.map((r) => r.ms));
  const out = { sql: { medianMs: sqlMs, medianWallMs: median(results.sql.map((r) => r.wallMs)), minMs: Math.min(...results.sql.map((r) => r.ms)) } };
  for (const route of ROUTES) {
    const rs = results[route];
    const lastByte = median(rs.map((r) => r.lastByteMs));
    const names = Object.keys(rs[0].growthMiB);
    out[route] = {
      medianLastByteMs: lastByte,
      medianFirstByteMs: median(rs.map((r) => r.firstByteMs)),
      minLastByteMs: Math.min(...rs.map((r) => r.lastByteMs)),
      bytes: rs[0].bytes,
      ratioToSql: ratio(lastByte, sqlMs),
      maxGrowthMiB: Object.fromEntries(names.map((n) => [n, Math.max(...rs.map((r) => r.growthMiB[n]))])),
      maxPeakRssMiB: Object.fromEntries(names.map((n) => [n, Math.max(...rs.map((r) => r.peakRssMiB[n]))])),
      medianCpuMs: Object.fromEntries(Object.keys(rs[0].cpuMs).map((n) => [n, median(rs.map((r) => r.cpuMs[n]))])),
    };
  }
  return out;
}

function report(f, targets, { plan, judged }) {
  const out = [];
  out.push(
    formatTable(
      ['route', 'median', 'best', 'first byte', 'x SQL', 'MiB sent'],
      [
        ['SQL in psql (\\timing)', ms(f.sql.medianMs), ms(f.sql.minMs), '-', '1.00x', '-'],
        ['psql process, wall clock', ms(f.sql.medianWallMs), '-', '-', times(ratio(f.sql.medianWallMs, f.sql.medianMs)), '-'],
        ...ROUTES.map((r) => [
          ROUTE_LABEL[r],
          ms(f[r].medianLastByteMs),
          ms(f[r].minLastByteMs),
          ms(f[r].medianFirstByteMs),
          times(f[r].ratioToSql),
          num(f[r].bytes / 2 ** 20, 1),
        ]),
      ],
      `GET /stock-levels, ${num(plan.products)} products: time to last byte over ${plan.runs} runs (one request at a time)`,
    ),
  );
  out.push(
    formatTable(
      ['route', 'edge RSS before', 'edge peak', 'edge growth', 'stock before', 'stock peak', 'stock growth', 'gateway growth'],
      ROUTES.map((r) => [
        ROUTE_LABEL[r],
        `${num(f[r].maxPeakRssMiB.edge - f[r].maxGrowthMiB.edge, 1)} MiB`,
        `${num(f[r].maxPeakRssMiB.edge, 1)} MiB`,
        `${num(f[r].maxGrowthMiB.edge, 1)} MiB`,
        `${num(f[r].maxPeakRssMiB.stock - f[r].maxGrowthMiB.stock, 1)} MiB`,
        `${num(f[r].maxPeakRssMiB.stock, 1)} MiB`,
        `${num(f[r].maxGrowthMiB.stock, 1)} MiB`,
        `${num(f[r].maxGrowthMiB.gateway, 1)} MiB`,
      ]),
      'Resident memory (VmRSS sampled every 5 ms and VmHWM), largest over the runs',
    ),
  );
  const procs = Object.keys(f.direct.medianCpuMs);
  out.push(formatTable(['CPU ms per request (median)', ...procs], ROUTES.map((r) => [ROUTE_LABEL[r], ...procs.map((p) => num(f[r].medianCpuMs[p]))])));
  out.push(
    formatTable(
      ['target', 'wanted', 'measured', 'met'],
      targets.map((t) => [t.name, t.target, t.format(t.measured), judged ? yesNo(t.met) : 'not judged (quick/profiled run)']),
    ),
  );
  out.push('The SQL figure is psql\'s \\timing of the one statement (rows fetched, output discarded); the REST figure includes authentication, the channel JWT and every feed page.');
  return out.join('\n\n');
}
