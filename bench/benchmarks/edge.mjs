// Issue 2: what the REST edge costs in front of the gateway.
//
// Production wiring, each in its own process from its dist/main.js: the accounts subgraph (on a
// fresh, migrated bench database, its outbox relayed to Kafka), the gateway, the REST edge (Redis
// rate limiter with a per-token limit raised out of the way, Kafka consumer for cache
// invalidation), and a bare node:http server as the baseline. The same channel read goes
//   edge:     GET /v1/channels/{id}/ with the API token      (edge -> gateway -> accounts -> Postgres)
//   floor:    GET / on a minimal proxy (bench/lib/floor-proxy.mjs: one Redis script, the same
//             gateway call, nothing else): the least any edge adds on this machine
//   gateway:  the edge's EdgeChannel query with a channel JWT (gateway -> accounts -> Postgres)
//   accounts: the same query straight to the subgraph        (accounts -> Postgres)
//   bare:     GET / on node:http
// at 50 connections and at one connection, each after a warm-up, with the load generator in its
// own process.
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuBetween, cpuSnapshot, machineBusySeconds, pidsByCommand } from '../lib/cpu.mjs';
import { probe } from '../lib/http.mjs';
import { REDIS_URL } from '../lib/infra.mjs';
import { channelJwt } from '../lib/jwt.mjs';
import { baseEnv, freePort } from '../lib/processes.mjs';
import { summarizeCpuProfile } from '../lib/profile.mjs';
import { createBenchChannel, distFile, startStack } from '../lib/stack.mjs';
import { ratio, summarizeLatencies } from '../lib/stats.mjs';
import { formatTable, ms, num, pct, times, yesNo } from '../lib/table.mjs';

export const name = 'edge';
export const description = 'REST edge vs gateway vs accounts subgraph vs bare node:http (issue 2)';

/** Targets of issue 2. */
export const TARGETS = {
  /** edge -> gateway throughput over gateway-direct throughput, at 50 connections. */
  minThroughputRatio: 0.6,
  /** edge p50 minus gateway-direct p50, at one connection. */
  maxAddedP50Ms: 1.5,
};

const PLAN = {
  full: { many: { connections: 50, warmupSeconds: 5, durationSeconds: 20 }, one: { connections: 1, warmupSeconds: 3, durationSeconds: 10 } },
  quick: { many: { connections: 50, warmupSeconds: 1, durationSeconds: 2 }, one: { connections: 1, warmupSeconds: 1, durationSeconds: 2 } },
};

const ROUTES = ['edge', 'floor', 'gateway', 'accounts', 'bare'];
const ROUTE_LABEL = {
  edge: 'edge -> gateway -> accounts',
  floor: 'minimal proxy -> gateway -> accounts',
  gateway: 'gateway -> accounts',
  accounts: 'accounts subgraph',
  bare: 'bare node:http',
  gatewayPaced: 'gateway -> accounts, edge pace',
  gatewayEven: 'gateway -> accounts, edge pace, even',
};

/** @param {import('../lib/context.mjs').BenchContext} ctx */
export async function run(ctx) {
  const { root, options } = ctx;
  const plan = options.quick ? PLAN.quick : PLAN.full;
  // The very operation (and request body) the edge sends for GET /.
  const require = createRequire(import.meta.url);
  const { EDGE_CHANNEL } = require(distFile(root, 'services/rest-edge/dist/resources/channel/operation.js'));

  // Only accounts among the subgraphs: the channel query is planned and answered by it alone.
  const stack = await startStack(ctx, { subgraphs: ['accounts'], edge: true });
  const { jwt, db, gateway, edge } = stack;
  const accounts = stack.subgraphs.accounts;
  const bare = await ctx.processes.startService({
    name: 'bare',
    script: path.join(root, 'bench/lib/hello-server.mjs'),
    port: await freePort(),
    env: baseEnv(),
    readyPath: '/',
  });
  const { teamCode, channelId, apiToken } = await createBenchChannel(stack);
  ctx.log(`channel ${channelId} with its API token`);
  // The floor: the least any edge does per request here (one Redis script, one gateway call).
  const floor = await ctx.processes.startService({
    name: 'floor',
    script: path.join(root, 'bench/lib/floor-proxy.mjs'),
    port: await freePort(),
    env: {
      ...baseEnv(),
      GATEWAY_URL: `${gateway.url}/graphql`,
      REDIS_URL,
      REDIS_KEY: `${stack.redisPrefix}floor`,
      GRAPHQL_BODY: `${EDGE_CHANNEL.bodyPrefix}${JSON.stringify({ id: channelId })}}`,
      // A channel JWT lives minutes; the run is shorter than that, and so is this one's use.
      BEARER: channelJwt(jwt, teamCode, channelId),
    },
  });

  const graphqlJob = (url) => ({
    url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${channelJwt(jwt, teamCode, channelId)}`,
      'x-request-id': 'bench',
    },
    body: `${EDGE_CHANNEL.bodyPrefix}${JSON.stringify({ id: channelId })}}`,
  });
  const jobs = {
    edge: { url: `${edge.url}/v1/channels/${channelId}/`, headers: { authorization: `Bearer ${apiToken}` } },
    floor: { url: `${floor.url}/` },
    gateway: graphqlJob(`${gateway.url}/graphql`),
    accounts: graphqlJob(`${accounts.url}/graphql`),
    bare: { url: `${bare.url}/` },
  };
  await checkAnswers(jobs, channelId);
  ctx.log('every route answers the channel (checked once before loading)');

  const watch = () => ({
    'rest-edge': [edge.pid],
    gateway: [gateway.pid],
    accounts: [accounts.pid],
    // The backends serving this run's database only (other suites may use the same server).
    postgres: pidsByCommand('postgres', ` ${db.name} `),
    redis: pidsByCommand('redis-server'),
    bare: [bare.pid],
    floor: [floor.pid],
  });

  const windows = { many: {}, one: {} };
  for (const level of ['many', 'one']) {
    for (const route of ROUTES) {
      const shape = plan[level];
      ctx.log(`${ROUTE_LABEL[route]}: ${shape.connections} connection(s), ${shape.warmupSeconds} s warm-up, ${shape.durationSeconds} s measured`);
      const result = await ctx.load({ ...jobs[route], ...shape }, watch);
      windows[level][route] = result;
      const bad = result.non2xx + result.errors + result.timeouts;
      ctx.log(
        `  ${num(result.requestsPerSecond)} req/s, p50 ${ms(result.latencyMs.p50)}, p99 ${ms(result.latencyMs.p99)}` +
          (bad ? `, ${bad} failed (${JSON.stringify(result.statusCounts)})` : ''),
      );
      await sleep(1000);
    }
  }

  // Control: gateway-direct at one connection, paced to the rate the edge route reached, so the
  // gateway and accounts sit idle between requests as long as behind the edge. On a small VM a
  // process that sleeps between requests pays for waking up; this separates that from the edge's
  // own work in "the p50 the edge adds".
  {
    const pace = Math.max(1, Math.round(windows.one.edge.requestsPerSecond));
    ctx.log(`${ROUTE_LABEL.gatewayPaced}: 1 connection at ${pace} req/s (control)`);
    const result = await ctx.load({ ...jobs.gateway, ...plan.one, overallRate: pace }, watch);
    windows.one.gatewayPaced = result;
    ctx.log(`  ${num(result.requestsPerSecond)} req/s, p50 ${ms(result.latencyMs.p50)}, p99 ${ms(result.latencyMs.p99)}`);
    // autocannon's pace sends each second's quota back to back and then idles, so most of those
    // requests find the gateway warm. This one spaces them evenly (one every 1/pace s), so the
    // gateway and accounts idle between requests about as long as behind the edge.
    ctx.log(`${ROUTE_LABEL.gatewayEven}: 1 connection, one request every ${ms(1000 / pace)} (control)`);
    await ctx.waitForQuietMachine();
    const even = await evenlyPaced(jobs.gateway, pace, plan.one, watch);
    windows.one.gatewayEven = even;
    ctx.log(`  ${num(even.requestsPerSecond)} req/s, p50 ${ms(even.latencyMs.p50)}, p99 ${ms(even.latencyMs.p99)}`);
  }

  const figures = computeFigures(windows);
  const clean = ROUTES.every((r) => ['many', 'one'].every((l) => windows[l][r].non2xx + windows[l][r].errors + windows[l][r].timeouts === 0));
  const judged = !options.quick && !options.profile;
  const targets = [
    {
      name: 'edge/gateway throughput at 50 connections',
      target: `>= ${TARGETS.minThroughputRatio.toFixed(2)}`,
      measured: figures.edgeOverGatewayThroughput,
      met: figures.edgeOverGatewayThroughput >= TARGETS.minThroughputRatio,
    },
    {
      name: 'p50 the edge adds at one connection',
      target: `<= ${TARGETS.maxAddedP50Ms} ms`,
      measured: figures.edgeAddedP50MsAtOneConnection,
      met: figures.edgeAddedP50MsAtOneConnection <= TARGETS.maxAddedP50Ms,
    },
  ];

  ctx.print(report(windows, figures, targets, { plan, judged, clean }));

  let profiles;
  if (options.profile) {
    // Profiles are written when each process exits.
    await ctx.processes.stopAll();
    const dir = path.join(ctx.runDir, 'profiles');
    profiles = {};
    for (const svc of ['rest-edge', 'gateway', 'accounts']) {
      const file = existsSync(dir) ? readdirSync(dir).find((f) => f.startsWith(svc)) : undefined;
      if (!file) continue;
      // Only the windows that load the whole chain (the edge route), start-up and other routes left out.
      const edgeWindows = ['many', 'one'].map((l) => windows[l].edge.window);
      profiles[svc] = summarizeCpuProfile(path.join(dir, file), root, 20, edgeWindows);
      ctx.print(profileReport(svc, profiles[svc], root));
    }
  }

  return {
    wiring: {
      processes: ['accounts', 'gateway', 'rest-edge', 'minimal proxy (bench/lib/floor-proxy.mjs)', 'bare node:http', 'load generator (autocannon)'],
      eventBus: 'kafka',
      rateLimitStore: 'redis',
      database: 'fresh bench database, migrated with services/accounts/dist/migrate.js',
    },
    plan,
    windows,
    figures,
    targets: targets.map((t) => ({ ...t, judged })),
    allResponses2xx: clean,
    targetsMet: judged ? targets.every((t) => t.met) && clean : undefined,
    ...(profiles ? { profiles } : {}),
  };
}

async function checkAnswers(jobs, channelId) {
  for (const [route, job] of Object.entries(jobs)) {
    const res = await probe(job);
    if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${res.text.slice(0, 500)}`);
    if (route === 'bare') continue;
    const body = JSON.parse(res.text);
    const channel = route === 'edge' ? body.data : body.data?.channel;
    if (channel?.id !== channelId) throw new Error(`${route} did not answer the channel: ${res.text.slice(0, 500)}`);
  }
}

function computeFigures(w) {
  const rps = (l, r) => w[l][r].requestsPerSecond;
  const p50 = (l, r) => w[l][r].latencyMs.p50;
  return {
    edgeOverGatewayThroughput: ratio(rps('many', 'edge'), rps('many', 'gateway')),
    gatewayOverBareThroughput: ratio(rps('many', 'gateway'), rps('many', 'bare')),
    accountsOverBareThroughput: ratio(rps('many', 'accounts'), rps('many', 'bare')),
    edgeOverBareThroughput: ratio(rps('many', 'edge'), rps('many', 'bare')),
    gatewayOverAccountsThroughput: ratio(rps('many', 'gateway'), rps('many', 'accounts')),
    edgeAddedP50MsAtOneConnection: p50('one', 'edge') - p50('one', 'gateway'),
    floorAddedP50MsAtOneConnection: p50('one', 'floor') - p50('one', 'gateway'),
    floorOverGatewayThroughput: ratio(rps('many', 'floor'), rps('many', 'gateway')),
    gatewayAddedP50MsAtOneConnection: p50('one', 'gateway') - p50('one', 'accounts'),
    edgeAddedP50MsAt50Connections: p50('many', 'edge') - p50('many', 'gateway'),
    edgeAddedP50MsOverGatewayAtEdgePace: p50('one', 'edge') - p50('one', 'gatewayPaced'),
    edgeAddedP50MsOverGatewayAtEvenEdgePace: p50('one', 'edge') - p50('one', 'gatewayEven'),
  };
}

function report(windows, figures, targets, { plan, judged, clean }) {
  const out = [];
  for (const level of ['many', 'one']) {
    const shape = plan[level];
    const routes = Object.keys(windows[level]);
    const rows = routes.map((r) => {
      const w = windows[level][r];
      return [
        ROUTE_LABEL[r],
        num(w.requestsPerSecond),
        ms(w.latencyMs.p50),
        ms(w.latencyMs.p99),
        ms(w.latencyMs.mean),
        num(w.ok),
        num(w.non2xx + w.errors + w.timeouts),
        pct(w.otherCpuPercent),
      ];
    });
    out.push(
      formatTable(
        ['route', 'req/s', 'p50', 'p99', 'mean', '2xx', 'failed', 'other CPU'],
        rows,
        `${shape.connections} connection(s), ${shape.durationSeconds} s measured after ${shape.warmupSeconds} s warm-up`,
      ),
    );
    // CPU per request: where the cores went, per process, for one request of each route.
    const procs = Object.keys(windows[level].edge.cpuPercent);
    const cpuRows = routes.map((r) => {
      const w = windows[level][r];
      return [ROUTE_LABEL[r], ...procs.map((p) => (w.ok ? num((w.cpuPercent[p] / 100) * w.durationSeconds * 1000 / w.ok, 3) : '-'))];
    });
    out.push(formatTable(['CPU ms per request', ...procs], cpuRows));
  }
  out.push(
    formatTable(
      ['ratio (50 connections, req/s)', 'value'],
      [
        ['edge / gateway-direct', times(figures.edgeOverGatewayThroughput)],
        ['minimal proxy / gateway-direct (the floor)', times(figures.floorOverGatewayThroughput)],
        ['gateway / bare', times(figures.gatewayOverBareThroughput, 3)],
        ['accounts / bare', times(figures.accountsOverBareThroughput, 3)],
        ['edge / bare', times(figures.edgeOverBareThroughput, 3)],
        ['gateway / accounts', times(figures.gatewayOverAccountsThroughput)],
      ],
    ),
  );
  out.push(
    formatTable(
      ['added p50', 'value'],
      [
        ['edge over gateway-direct, 1 connection', ms(figures.edgeAddedP50MsAtOneConnection)],
        ['minimal proxy over gateway-direct, 1 connection (the floor)', ms(figures.floorAddedP50MsAtOneConnection)],
        ['gateway over accounts, 1 connection', ms(figures.gatewayAddedP50MsAtOneConnection)],
        ['edge over gateway-direct, 50 connections', ms(figures.edgeAddedP50MsAt50Connections)],
        ['edge over gateway-direct at the edge pace, 1 connection (control)', ms(figures.edgeAddedP50MsOverGatewayAtEdgePace)],
        ['edge over gateway-direct at the edge pace, evenly spaced (control)', ms(figures.edgeAddedP50MsOverGatewayAtEvenEdgePace)],
      ],
    ),
  );
  out.push(
    formatTable(
      ['target', 'wanted', 'measured', 'met'],
      targets.map((t) => [
        t.name,
        t.target,
        t.name.includes('p50') ? ms(t.measured) : num(t.measured, 2),
        judged ? yesNo(t.met) : 'not judged (quick/profiled run)',
      ]),
    ),
  );
  if (!clean) out.push('WARNING: some responses were not 2xx; see "failed" above and the logs.');
  const busiest = Math.max(...['many', 'one'].flatMap((l) => ROUTES.map((r) => windows[l][r].otherCpuPercent)));
  if (busiest > 20) {
    out.push(`WARNING: other processes used up to ${busiest.toFixed(0)} % CPU (100 % = one core) during a window; the figures are disturbed.`);
  }
  out.push('"other CPU": what processes outside this run used meanwhile (100 % = one core).');
  return out.join('\n\n');
}

function profileReport(svc, summary, root) {
  return [
    formatTable(
      ['origin', 'self ms', '% of busy'],
      summary.origins.map((o) => [o.name, num(o.ms), num(o.percentOfBusy, 1)]),
      `CPU profile of ${svc} during the edge route's windows: ${num(summary.busyMs)} ms busy of ${num(summary.totalMs)} ms (${path.relative(root, summary.file)})`,
    ),
    formatTable(
      ['function (self time)', 'self ms', '% of busy'],
      summary.functions.map((f) => [f.name, num(f.ms), num(f.percentOfBusy, 1)]),
    ),
    formatTable(
      ['function (including callees; synchronous part only)', 'total ms', '% of busy'],
      summary.inclusive.map((f) => [f.name, num(f.ms), num(f.percentOfBusy, 1)]),
    ),
  ].join('\n\n');
}

/**
 * One request at a time, each sent at its slot (one every 1/rate s; late ones at once), from this
 * process over one keep-alive connection: warm-up, then the measured window, with the CPU of
 * `watch`'s processes. Shaped like a load window's result.
 */
async function evenlyPaced(job, rate, shape, watch) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(job.url);
  const once = () =>
    new Promise((resolve, reject) => {
      const start = performance.now();
      const req = http.request(url, { method: job.method ?? 'GET', headers: job.headers ?? {}, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - start }));
      });
      req.on('error', reject);
      req.end(job.body);
    });
  const runFor = async (seconds, record) => {
    const interval = 1000 / rate;
    const t0 = performance.now();
    const samples = [];
    let failed = 0;
    for (let i = 0; i * interval < seconds * 1000; i++) {
      const wait = t0 + i * interval - performance.now();
      if (wait >= 1) await sleep(wait);
      const r = await once();
      if (r.status < 200 || r.status > 299) failed++;
      else if (record) samples.push(r.ms);
    }
    return { samples, failed, seconds: (performance.now() - t0) / 1000 };
  };
  try {
    await runFor(shape.warmupSeconds, false);
    const cpuBefore = cpuSnapshot(watch());
    const busyBefore = machineBusySeconds();
    const { samples, failed, seconds } = await runFor(shape.durationSeconds, true);
    const cpu = cpuBetween(cpuBefore, cpuSnapshot(watch()));
    const busy = machineBusySeconds() - busyBefore;
    const ours = Object.values(cpu).reduce((a, b) => a + b, 0);
    return {
      durationSeconds: seconds,
      requestsPerSecond: samples.length / seconds,
      latencyMs: summarizeLatencies(samples),
      ok: samples.length,
      non2xx: failed,
      errors: 0,
      timeouts: 0,
      cpuPercent: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, (v / seconds) * 100])),
      // The bench process itself (the load generator here) counts as "other".
      otherCpuPercent: Math.max(0, ((busy - ours) / seconds) * 100),
    };
  } finally {
    agent.destroy();
  }
}
