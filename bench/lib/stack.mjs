// The platform in its production wiring, for benchmarks: subgraphs, the gateway and the REST edge,
// each in its own process from its dist/main.js, on a fresh bench database (migrated with each
// service's dist/migrate.js), Kafka under a prefix of the run's own and Redis under another. Every
// process, the database, the topics and the keys go away in the context's clean-up.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createBenchDatabase, migrateService } from './database.mjs';
import { graphql } from './http.mjs';
import { deleteKafkaPrefix, deleteRedisKeys, ensureInfrastructure, KAFKA_BROKERS, REDIS_URL } from './infra.mjs';
import { benchJwtSettings, jwtEnv, serviceJwt } from './jwt.mjs';
import { baseEnv, freePort } from './processes.mjs';

/** A compiled file of the repository, or a clear error asking for a build. */
export function distFile(root, relative) {
  const file = path.join(root, relative);
  if (!existsSync(file)) throw new Error(`${relative} is missing: build first (npm run build)`);
  return file;
}

/**
 * @typedef {object} StackOptions
 * @property {string[]} subgraphs  Service folders under services/ to run as subgraphs (e.g. ['accounts']).
 * @property {boolean} [edge]      Also run the REST edge in front of the gateway.
 * @property {Record<string, Record<string, string> | ((started: { subgraphs: Record<string, import('./processes.mjs').ServiceProcess> }) => Record<string, string>)>} [env]
 *   Extra environment per process name; a function gets the subgraphs started before it (e.g. the
 *   orders service's STOCK_URL).
 */

/**
 * @param {import('./context.mjs').BenchContext} ctx
 * @param {StackOptions} opts
 */
export async function startStack(ctx, opts) {
  const { root } = ctx;
  ctx.log('infrastructure: PostgreSQL, Redis, Kafka (scripts/infra.sh up)');
  await ensureInfrastructure(root);

  const suffix = randomBytes(5).toString('hex');
  const kafkaPrefix = `pf-bench-${suffix}.`;
  const redisPrefix = `pf-bench-${suffix}:`;
  const db = await createBenchDatabase(`pf_bench_${suffix}`);
  ctx.onCleanup('drop bench database', () => db.drop());
  ctx.onCleanup('delete Kafka topics and groups', () => deleteKafkaPrefix(kafkaPrefix));
  ctx.onCleanup('delete Redis keys', () => deleteRedisKeys(redisPrefix));
  ctx.log(`database ${db.name}, Kafka prefix ${kafkaPrefix}, Redis prefix ${redisPrefix}`);
  for (const svc of opts.subgraphs) await migrateService(distFile(root, `services/${svc}/dist/migrate.js`), db.url);
  ctx.log(`starting ${[...opts.subgraphs, 'gateway', ...(opts.edge ? ['rest-edge'] : [])].join(', ')}, each in its own process`);

  const jwt = benchJwtSettings();
  const common = {
    ...baseEnv(),
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    ...jwtEnv(jwt),
    EVENT_BUS: 'kafka',
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    KAFKA_TOPIC_PREFIX: kafkaPrefix,
  };
  const nodeArgs = (name) =>
    ctx.options.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ctx.runDir, 'profiles')}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  /** @type {Record<string, import('./processes.mjs').ServiceProcess>} */
  const subgraphs = {};
  const extraEnv = (name) => (typeof opts.env?.[name] === 'function' ? opts.env[name]({ subgraphs }) : opts.env?.[name]);
  const start = async (name, script, env) =>
    ctx.processes.startService({ name, script, port: await freePort(), env: { ...common, ...env, ...extraEnv(name) }, nodeArgs: nodeArgs(name) });

  for (const svc of opts.subgraphs) {
    subgraphs[svc] = await start(svc, distFile(root, `services/${svc}/dist/main.js`), { DATABASE_URL: db.url });
  }
  // Subgraphs not started keep the gateway's defaults: a query that needs none of them (and the
  // gateway's readiness) never calls them.
  const subgraphUrls = Object.fromEntries(Object.entries(subgraphs).map(([svc, p]) => [`SUBGRAPH_${svc.toUpperCase()}_URL`, `${p.url}/graphql`]));
  const gateway = await start('gateway', distFile(root, 'gateway/dist/main.js'), subgraphUrls);

  let edge;
  if (opts.edge) {
    if (!subgraphs.accounts) throw new Error('the REST edge needs the accounts subgraph');
    edge = await start('rest-edge', distFile(root, 'services/rest-edge/dist/main.js'), {
      GATEWAY_URL: `${gateway.url}/graphql`,
      ACCOUNTS_URL: `${subgraphs.accounts.url}/graphql`,
      JWT_SIGNING_KEY: jwt.key,
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      // Exercised on every request (its Lua script runs), never refusing during a benchmark.
      RATE_LIMIT_PER_TOKEN: '1000000000',
    });
  }

  return { suffix, db, jwt, kafkaPrefix, redisPrefix, subgraphs, gateway, edge };
}

/**
 * A team, a channel and the channel's API token, created through the gateway with a
 * platform-operator identity (the accounts mutations, as a back office would).
 * @param {Awaited<ReturnType<typeof startStack>>} stack
 */
export async function createBenchChannel(stack, teamCode = `bench${stack.suffix}`, channelCode = 'shop') {
  const url = `${stack.gateway.url}/graphql`;
  const operator = serviceJwt(stack.jwt, 'bench');
  await graphql(url, operator, 'mutation($i: CreateTeamInput!) { createTeam(input: $i) { code } }', { i: { code: teamCode, name: 'Bench team' } });
  const { createChannel } = await graphql(url, operator, 'mutation($i: CreateChannelInput!) { createChannel(input: $i) { id } }', {
    i: { teamCode, code: channelCode, name: 'Bench shop' },
  });
  const { issueApiToken } = await graphql(url, operator, 'mutation($c: ID!) { issueApiToken(channelId: $c) { token } }', { c: createChannel.id });
  return { teamCode, channelId: createChannel.id, apiToken: issueApiToken.token };
}
