// Issue 5: what the durable webhook queue costs next to a plain HTTP client, and how fast an event
// becomes its first delivery attempt.
//
// Production wiring, each in its own process: the webhooks service from its dist/main.js (on a
// fresh, migrated bench database, events from Kafka), a local HTTPS receiver that answers 200 at
// once (self-signed certificate made with openssl, trusted by the service through
// WEBHOOK_EXTRA_CA; 127.0.0.1 allowed through WEBHOOK_ALLOW_PRIVATE_RANGES, as in the tests), and
// for the baseline a plain `got` loop with a keep-alive agent. The URL is the IP literal
// https://127.0.0.1:<port>/ for both, so neither pays for DNS.
//
//   1. queue: N deliveries queued in Postgres (signed bodies, as the service queues them), then the
//      service started: deliveries per second at the receiver, first to last arrival;
//   2. plain: the same N signed bodies sent by a plain got loop at the same concurrency;
//   3. latency: order.created events published to Kafka at 500 per second; for each, the time from
//      publishing to its first attempt arriving at the receiver.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createBenchDatabase, migrateService } from '../lib/database.mjs';
import { graphql } from '../lib/http.mjs';
import { deleteKafkaPrefix, ensureInfrastructure, KAFKA_BROKERS } from '../lib/infra.mjs';
import { benchJwtSettings, channelJwt, jwtEnv } from '../lib/jwt.mjs';
import { baseEnv, freePort } from '../lib/processes.mjs';
import { percentile, ratio } from '../lib/stats.mjs';
import { formatTable, ms, num, times, yesNo } from '../lib/table.mjs';

export const name = 'webhooks';
export const description = 'webhook queue vs a plain got loop, and event -> first attempt at 500 events/s (issue 5)';

/** Targets of issue 5. */
export const TARGETS = {
  /** Queue deliveries per second over plain got loop requests per second. */
  minThroughputRatio: 0.5,
  /** p99 from publishing an event to its first attempt, at 500 events per second. */
  maxEventToAttemptP99Ms: 1000,
};

const PLAN = {
  full: { deliveries: 20_000, concurrency: 64, eventsPerSecond: 500, latencySeconds: 20 },
  quick: { deliveries: 2_000, concurrency: 64, eventsPerSecond: 500, latencySeconds: 3 },
};

const TEAM = 'bench';
const CHANNEL = 'bench-shop';

/** @param {import('../lib/context.mjs').BenchContext} ctx */
export async function run(ctx) {
  const { root, options } = ctx;
  const plan = options.quick ? PLAN.quick : PLAN.full;
  const dist = (p) => {
    const file = path.join(root, p);
    if (!existsSync(file)) throw new Error(`${p} is missing: build first (npm run build)`);
    return file;
  };
  const require = createRequire(path.join(root, 'package.json'));
  const notifications = require(dist('services/webhooks/dist/domain/notifications.js'));
  const { KafkaEventBus } = require(dist('libs/platform/dist/bus/kafka.js'));
  const { OrderCreated } = require(dist('libs/platform/dist/events/orders.js'));
  const { createLogger } = require(dist('libs/platform/dist/logging.js'));
  const scripts = { main: dist('services/webhooks/dist/main.js'), migrate: dist('services/webhooks/dist/migrate.js') };

  ctx.log('infrastructure: PostgreSQL, Kafka (scripts/infra.sh up)');
  await ensureInfrastructure(root);
  const suffix = randomBytes(5).toString('hex');
  const kafkaPrefix = `pf-bench-${suffix}.`;
  const db = await createBenchDatabase(`pf_bench_${suffix}`);
  ctx.onCleanup('drop bench database', () => db.drop());
  ctx.onCleanup('delete Kafka topics and groups', () => deleteKafkaPrefix(kafkaPrefix));
  await migrateService(scripts.migrate, db.url);

  mkdirSync(ctx.runDir, { recursive: true });
  const cert = makeCertificate(ctx.runDir);
  const receiverPort = await freePort();
  const receiver = await startHelper(ctx, 'receiver', receiverScript(), { CERT: cert.cert, KEY: cert.key, PORT: String(receiverPort) });
  const url = `https://127.0.0.1:${receiverPort}/hooks/{notificationType}`;

  const jwt = benchJwtSettings();
  const serviceEnv = {
    ...baseEnv(),
    NODE_ENV: 'test', // WEBHOOK_ALLOW_PRIVATE_RANGES and WEBHOOK_EXTRA_CA are refused in production
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...jwtEnv(jwt),
    DATABASE_URL: db.url,
    EVENT_BUS: 'kafka',
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    KAFKA_TOPIC_PREFIX: kafkaPrefix,
    WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
    WEBHOOK_EXTRA_CA: cert.certPath,
    WEBHOOK_DELIVERY_CONCURRENCY: String(plan.concurrency),
  };
  const nodeArgs = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ctx.runDir, 'profiles')}`] : [];
  const port = await freePort();
  const startService = (label) => ctx.processes.startService({ name: label, script: scripts.main, port, env: serviceEnv, nodeArgs });
  let service = await startService('webhooks');
  const { registerWebhook } = await graphql(`${service.url}/graphql`, channelJwt(jwt, TEAM, CHANNEL), 'mutation($u: String!) { registerWebhook(url: $u) { secret } }', { u: url });
  const secret = registerWebhook.secret;
  ctx.log(`channel ${CHANNEL} registered ${url}`);

  // 1. The queue: N signed deliveries waiting in Postgres, then the service drains them.
  await ctx.processes.stop(service);
  const bodies = await queueDeliveries(db.url, notifications, secret, plan.deliveries);
  const bodiesFile = path.join(ctx.runDir, 'bodies.jsonl');
  writeFileSync(bodiesFile, bodies.map((b) => JSON.stringify({ body: b.body.toString('base64'), signature: b.signature })).join('\n'));
  ctx.log(`${plan.deliveries} deliveries queued; starting the service to drain them (concurrency ${plan.concurrency})`);
  await receiver.ask({ cmd: 'reset' });
  service = await startService('webhooks-drain');
  const queueStats = await waitForCount(receiver, plan.deliveries, 600_000);
  const queueRate = rate(queueStats);
  ctx.log(`  queue: ${num(queueRate)} deliveries/s (${queueStats.count} in ${ms(queueStats.last - queueStats.first)})`);
  const queueFailures = await countNotSucceeded(db.url);

  // 2. The same bodies through a plain got loop, same concurrency, same receiver.
  await receiver.ask({ cmd: 'reset' });
  const loop = await startHelper(ctx, 'got-loop', gotLoopScript(), {
    ROOT: root,
    BODIES: bodiesFile,
    URL: url.replace('{notificationType}', 'order-created'),
    CONCURRENCY: String(plan.concurrency),
    CA: cert.cert,
  });
  const loopDone = await loop.ask({ cmd: 'run' }, 600_000);
  const plainStats = await waitForCount(receiver, plan.deliveries, 60_000);
  const plainRate = rate(plainStats);
  ctx.log(`  plain got loop: ${num(plainRate)} requests/s (${loopDone.ok} answered 2xx)`);

  // 3. Event -> first attempt at 500 events/s, events published to Kafka.
  await receiver.ask({ cmd: 'reset' });
  const bus = new KafkaEventBus({ brokers: KAFKA_BROKERS, clientId: 'bench-orders', topicPrefix: kafkaPrefix, logger: createLogger('bench', 'warn') });
  ctx.onCleanup('close the bench producer', () => bus.close());
  await bus.publish([orderEvent(OrderCreated)]); // topic exists, producer connected
  await waitForCount(receiver, 1, 60_000);
  await receiver.ask({ cmd: 'reset' });
  const total = plan.eventsPerSecond * plan.latencySeconds;
  ctx.log(`latency: ${total} order.created events at ${plan.eventsPerSecond}/s to Kafka`);
  const tickMs = 20;
  const perTick = Math.round((plan.eventsPerSecond * tickMs) / 1000);
  const publishing = [];
  const startedAt = performance.now();
  for (let sent = 0, tick = 0; sent < total; tick++) {
    const due = startedAt + tick * tickMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const batch = Array.from({ length: Math.min(perTick, total - sent) }, () => orderEvent(OrderCreated));
    sent += batch.length;
    publishing.push(bus.publish(batch));
  }
  await Promise.all(publishing);
  const publishSeconds = (performance.now() - startedAt) / 1000;
  const latencyStats = await waitForCount(receiver, total, 120_000);
  const latencies = Float64Array.from(latencyStats.latencies).sort();
  const latency = { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] };
  ctx.log(`  p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)}, max ${ms(latency.max)} (${latencyStats.count} first attempts)`);

  const stages = await latencyStages(db.url);
  ctx.log(`  event -> queued p99 ${ms(stages.queuedP99)}, queued -> attempt started p99 ${ms(stages.startedP99)}`);

  const figures = {
    queueDeliveriesPerSecond: queueRate,
    plainGotRequestsPerSecond: plainRate,
    queueOverPlainRatio: ratio(queueRate, plainRate),
    eventToFirstAttemptMs: latency,
    /** Where the time went (from the database): event to queued, queued to the first attempt starting. */
    stagesP99Ms: stages,
    achievedEventsPerSecond: total / publishSeconds,
  };
  const judged = !options.quick && !options.profile;
  const targets = [
    { name: 'queue / plain got loop (deliveries/s)', target: `>= ${TARGETS.minThroughputRatio}`, measured: figures.queueOverPlainRatio, met: figures.queueOverPlainRatio >= TARGETS.minThroughputRatio },
    { name: `event -> first attempt p99 at ${plan.eventsPerSecond}/s`, target: `< ${TARGETS.maxEventToAttemptP99Ms} ms`, measured: latency.p99, met: latency.p99 < TARGETS.maxEventToAttemptP99Ms },
  ];
  const clean = queueFailures === 0 && loopDone.ok === plan.deliveries && latencyStats.count === total;
  ctx.print(
    [
      formatTable(
        ['route', 'per second', 'count', 'first -> last'],
        [
          ['queue (Postgres -> worker -> got -> receiver)', num(queueRate), num(queueStats.count), ms(queueStats.last - queueStats.first)],
          ['plain got loop (same bodies, same concurrency)', num(plainRate), num(plainStats.count), ms(plainStats.last - plainStats.first)],
        ],
        `${plan.deliveries} signed deliveries, concurrency ${plan.concurrency}, receiver answering 200 at once`,
      ),
      formatTable(
        ['event -> first attempt', 'p50', 'p90', 'p99', 'max', 'events/s achieved'],
        [[`${total} events`, ms(latency.p50), ms(latency.p90), ms(latency.p99), ms(latency.max), num(figures.achievedEventsPerSecond)]],
      ),
      formatTable(
        ['stage (p99)', 'event -> queued', 'queued -> attempt started'],
        [['from the database', ms(stages.queuedP99), ms(stages.startedP99)]],
      ),
      formatTable(
        ['target', 'wanted', 'measured', 'met'],
        targets.map((t) => [t.name, t.target, t.name.includes('p99') ? ms(t.measured) : times(t.measured), judged ? yesNo(t.met) : 'not judged (quick/profiled run)']),
      ),
      clean ? '' : `WARNING: not every delivery succeeded (queue not succeeded: ${queueFailures}, loop 2xx: ${loopDone.ok}, first attempts: ${latencyStats.count}/${total}).`,
    ].join('\n\n'),
  );
  return {
    wiring: {
      processes: ['webhooks (dist/main.js)', 'HTTPS receiver', 'plain got loop'],
      eventBus: 'kafka',
      database: 'fresh bench database, migrated with services/webhooks/dist/migrate.js',
      url: 'IP literal https://127.0.0.1:<port>/ (no DNS on either side)',
    },
    plan,
    figures,
    targets: targets.map((t) => ({ ...t, judged })),
    allDelivered: clean,
    targetsMet: judged ? targets.every((t) => t.met) && clean : undefined,
  };
}

function rate(stats) {
  const seconds = (stats.last - stats.first) / 1000;
  return seconds > 0 ? (stats.count - 1) / seconds : NaN;
}

function orderEvent(OrderCreated) {
  const now = new Date().toISOString();
  const order = {
    orderUuid: randomUUID(),
    teamCode: TEAM,
    channelId: CHANNEL,
    channelCode: 'shop',
    origin: 'api',
    orderNumber: `B-${randomUUID().slice(0, 8)}`,
    status: 'draft',
    fulfillableStatus: 'fulfillable',
    createdAt: now,
    updatedAt: now,
    confirmedAt: null,
  };
  return { topic: OrderCreated.topic, event: OrderCreated.create(order.orderUuid, { order }) };
}

/** Queues N order-created deliveries as the service queues them: serialised once, signed with the channel's secret. */
async function queueDeliveries(databaseUrl, n, secret, count) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const bodies = [];
  try {
    const { rows } = await client.query('SELECT secret_version FROM webhooks.endpoint WHERE channel_id = $1', [CHANNEL]);
    const version = rows[0].secret_version;
    for (let i = 0; i < count; i += 1000) {
      const chunk = [];
      for (let k = i; k < Math.min(count, i + 1000); k++) {
        const now = new Date().toISOString();
        const body = n.serialiseBody(
          n.orderCreatedPayload({ orderUuid: randomUUID(), teamCode: TEAM, channelCode: 'shop', orderNumber: `B/${k}`, status: 'draft', fulfillableStatus: 'fulfillable', createdAt: now, updatedAt: now, confirmedAt: null }),
        );
        chunk.push({ id: randomUUID(), body, signature: n.signBody(body, secret) });
      }
      bodies.push(...chunk);
      await client.query(
        `INSERT INTO webhooks.delivery (id, channel_id, team_code, notification_type, origin, body, signature, secret_version, status, next_attempt_at)
         SELECT id, $4, $5, 'order-created', 'event', body, signature, $6, 'pending', now()
           FROM unnest($1::uuid[], $2::bytea[], $3::text[]) AS u(id, body, signature)`,
        [chunk.map((c) => c.id), chunk.map((c) => c.body), chunk.map((c) => c.signature), CHANNEL, TEAM, version],
      );
    }
  } finally {
    await client.end();
  }
  return bodies;
}

/** p99 of event -> queued (delivery.created_at) and queued -> first attempt started, for the latency phase's deliveries. */
async function latencyStages(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `WITH d AS (
         SELECT d.created_at, (convert_from(d.body, 'UTF8')::json->>'updatedAt')::timestamptz AS event_at, a.started_at
           FROM webhooks.delivery d JOIN webhooks.delivery_attempt a ON a.delivery_id = d.id AND a.attempt_number = 1
          WHERE d.source_event_id IS NOT NULL)
       SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - event_at)) * 1000 AS queued,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)) * 1000 AS started
         FROM d`,
    );
    return { queuedP99: Number(rows[0].queued), startedP99: Number(rows[0].started) };
  } finally {
    await client.end();
  }
}

async function countNotSucceeded(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM webhooks.delivery WHERE status <> 'succeeded'");
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function waitForCount(helper, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await helper.ask({ cmd: 'stats' });
    if (stats.count >= count) return stats;
    if (Date.now() > deadline) throw new Error(`only ${stats.count} of ${count} arrived in ${timeoutMs} ms`);
    await sleep(100);
  }
}

function makeCertificate(dir) {
  const keyPath = path.join(dir, 'receiver-key.pem');
  const certPath = path.join(dir, 'receiver-cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath,
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { certPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

/**
 * A helper process of this run (receiver, got loop): an ES module written to the run folder,
 * spoken to over IPC (`ask` sends a command and waits for its answer).
 */
async function startHelper(ctx, label, source, env) {
  const file = path.join(ctx.runDir, `${label}.mjs`);
  writeFileSync(file, source);
  const child = spawn(process.execPath, [file], { env: { ...baseEnv(), ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  ctx.processes.track(child);
  const pending = [];
  child.on('message', (m) => pending.shift()?.(m));
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${label} exited (${code}) before it was ready`)));
  });
  return {
    child,
    ask(message, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${label} did not answer ${message.cmd}`)), timeoutMs);
        pending.push((m) => {
          clearTimeout(timer);
          resolve(m);
        });
        child.send(message);
      });
    },
  };
}

function receiverScript() {
  return `
import https from 'node:https';
let count = 0, first = 0, last = 0, latencies = [];
const server = https.createServer({ cert: process.env.CERT, key: process.env.KEY, keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    res.writeHead(200).end();
    count += 1;
    if (!first) first = now;
    last = now;
    if (req.headers['webhook-attempt'] === '1') {
      const updatedAt = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).updatedAt);
      if (updatedAt) latencies.push(now - updatedAt);
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send({ ready: true }));
process.on('message', (m) => {
  if (m.cmd === 'reset') { count = 0; first = 0; last = 0; latencies = []; process.send({ ok: true }); }
  if (m.cmd === 'stats') process.send({ count, first, last, latencies });
});
process.on('SIGTERM', () => process.exit(0));
`;
}

function gotLoopScript() {
  return `
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { rootCertificates } from 'node:tls';
const require = createRequire(process.env.ROOT + '/package.json');
const got = require('got');
const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: [...rootCertificates, process.env.CA] });
const client = got.extend({ agent: { https: agent }, followRedirect: false, retry: { limit: 0 }, throwHttpErrors: false, decompress: false, timeout: { request: 10000 } });
const items = readFileSync(process.env.BODIES, 'utf8').split('\\n').map((l) => JSON.parse(l)).map((i) => ({ body: Buffer.from(i.body, 'base64'), signature: i.signature }));
process.send({ ready: true });
process.on('message', async (m) => {
  if (m.cmd !== 'run') return;
  let next = 0, ok = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      const res = await client.post(process.env.URL, { body: item.body, headers: { 'content-type': 'application/json', 'service-api-version': '1.2.0', signature: item.signature } });
      if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: Number(process.env.CONCURRENCY) }, worker));
  process.send({ ok, ms: Date.now() - started });
});
process.on('SIGTERM', () => process.exit(0));
`;
}
