import http from 'node:http';
import path from 'node:path';
import { accountsService, seedDemoAccount } from '@pf/accounts';
import { catalogService, seedDemoCatalog } from '@pf/catalog';
import { gatewayService } from '@pf/gateway';
import { ordersService } from '@pf/orders';
import { restEdgeService } from '@pf/rest-edge';
import { seedDemoStock, stockService } from '@pf/stock';
import { webhooksService } from '@pf/webhooks';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { Lifecycle, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type JwtVerifyOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import { startProcessMetrics } from '@pf/platform/metrics';
import { serviceRootApp } from '@pf/platform/service/root-app';
import type { ServiceDefinition, ServiceInstance } from '@pf/platform/service/service';
import { loadEmbeddedConfig } from './config';
import { installationSecret, readJson, writeJson, type DemoCredentials } from './credentials';
import { republishRecentEvents, startEmbeddedPostgres } from './postgres';

const SUBGRAPHS: ServiceDefinition[] = [accountsService, catalogService, stockService, ordersService, webhooksService];

const config = loadEmbeddedConfig();

/**
 * The embedded wiring (ARCHITECTURE.md principle 5): every service in this one process, an
 * embedded PostgreSQL with its data under `.data/`, the in-memory event bus and the in-memory rate
 * limiter. The services are the same code the production wiring runs; only the adapters differ.
 */
async function main(): Promise<void> {
  const logger = createLogger('embedded', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, 20_000);
  startProcessMetrics('embedded');
  lifecycle.installSignalHandlers();

  const postgres = await startEmbeddedPostgres(config.PF_DATA_DIR, config.PF_POSTGRES_PORT, logger);
  lifecycle.onShutdown('postgres', () => postgres.stop());
  for (const def of SUBGRAPHS) {
    await migrate({ connectionString: postgres.url, schema: def.schema!, sources: serviceMigrationSources(def.migrationsDir!), logger });
  }
  await republishRecentEvents(postgres.url, SUBGRAPHS.map((def) => def.schema!), logger);

  const jwt: JwtVerifyOptions = {
    algorithm: 'HS256',
    key: await installationSecret(config.PF_DATA_DIR),
    issuer: 'pf-platform',
    audience: 'pf-graph',
  };
  const bus = new InMemoryEventBus(logger.child({ component: 'bus' }));
  lifecycle.onShutdown('event bus', () => bus.close());

  const host = config.PF_HOST;
  const start = async (def: ServiceDefinition, port: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> => {
    const instance = await def.create({
      databaseUrl: postgres.url,
      bus,
      jwt,
      // Its own logger, named as in its own process (a child would write `service` twice in a line).
      logger: createLogger(def.name, config.LOG_LEVEL),
      env: serviceEnv(extraEnv),
    });
    return serve(def.name, instance, port);
  };
  const serve = async (name: string, instance: ServiceInstance, port: number): Promise<string> => {
    lifecycle.onShutdown(`${name} background work`, () => instance.stop());
    lifecycle.addReadinessCheck(name, () => instance.ready());
    // Every service of the process answers the same (shared) metrics and health.
    const server = http.createServer(instance.serverOptions ?? {}, serviceRootApp(instance, lifecycle));
    instance.configureServer?.(server);
    lifecycle.registerHttpServer(`${name} http`, server);
    await instance.start();
    const bound = await listen(server, port, host);
    return `http://${host}:${bound}`;
  };

  // Subgraphs on ephemeral loopback ports; only the gateway and the edge have well-known ones.
  // Services that call another directly (orders and webhooks call stock, the edge calls accounts
  // and stock) find it as `<NAME>_URL`; SUBGRAPHS is ordered so a callee starts before its callers.
  const subgraphUrls: Record<string, string> = {};
  const directUrls: NodeJS.ProcessEnv = {};
  for (const def of SUBGRAPHS) {
    const url = `${await start(def, 0, { ...directUrls })}/graphql`;
    subgraphUrls[def.name] = url;
    directUrls[`${def.name.toUpperCase()}_URL`] = url;
  }
  const subgraphEnv = Object.fromEntries(
    Object.entries(subgraphUrls).map(([name, url]) => [`SUBGRAPH_${name.toUpperCase()}_URL`, url]),
  );
  const gatewayBase = await start(gatewayService, config.PF_GATEWAY_PORT, subgraphEnv);
  const restBase = await start(restEdgeService, config.PF_REST_PORT, {
    ...directUrls,
    GATEWAY_URL: `${gatewayBase}/graphql`,
    RATE_LIMIT_STORE: 'memory',
    // Every request checks its credentials with accounts: a revoked token, a deactivated channel
    // or team is refused from the next request on, not once the event reached the edge. A
    // development system can afford the lookup; deployments cache (AUTH_CACHE_TTL_MS, see README).
    AUTH_CACHE_TTL_MS: '0',
  });

  const credentials = await demoCredentials({
    databaseUrl: postgres.url,
    restBase,
    graphqlUrl: `${gatewayBase}/graphql`,
    jwt,
  });
  const summary = [
    '',
    'Print-and-fulfilment platform is running (embedded wiring). Ctrl-C stops it.',
    `  REST base URL : ${credentials.restBaseUrl}`,
    `  GraphQL URL   : ${credentials.graphqlUrl}`,
    `  Channel id    : ${credentials.channelId}`,
    `  API token     : ${credentials.token}`,
    `  Back-office JWT (Authorization: Bearer ...):`,
    `    ${credentials.backOfficeJwt}`,
    `  Saved to ${path.join(config.PF_DATA_DIR, 'demo-credentials.json')}`,
    '',
  ];
  process.stdout.write(summary.join('\n') + '\n');
}

/**
 * A service's settings: the process environment (the variables of the README's per-service tables,
 * such as ORDER_COUNTDOWN_SECONDS or WEBHOOK_ALLOW_PRIVATE_RANGES, so a development system can be
 * tuned as a deployment is) under what the embedded wiring decides itself: a development system on
 * the in-memory bus, and `extraEnv` (the services' URLs, the edge's limiter and credentials cache).
 */
function serviceEnv(extraEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: 'development', EVENT_BUS: 'memory', ...extraEnv };
}

/**
 * On first start: creates the demo team, channel and token. Later starts reuse the saved token
 * (it is stored hashed, so the file is its only copy) and refresh the back-office JWT.
 */
async function demoCredentials(opts: {
  databaseUrl: string;
  restBase: string;
  graphqlUrl: string;
  jwt: JwtVerifyOptions;
}): Promise<DemoCredentials> {
  const file = path.join(config.PF_DATA_DIR, 'demo-credentials.json');
  const saved = await readJson<DemoCredentials>(file);
  const account = saved
    ? { channelId: saved.channelId, token: saved.token, teamCode: saved.channelId.split('-')[0]! }
    : await seedDemoAccount({ databaseUrl: opts.databaseUrl });
  // Both seeders are idempotent: a catalogue that exists is kept, stock is added only where missing.
  // Stock only until a first start finished (the credentials are saved then): on later starts the
  // catalogue also holds the merchant's own products, and their stock is the merchant's business.
  const catalog = await seedDemoCatalog({ databaseUrl: opts.databaseUrl, teamCode: account.teamCode });
  if (!saved) await seedDemoStock({ databaseUrl: opts.databaseUrl, teamCode: account.teamCode, products: catalog.products });
  const credentials: DemoCredentials = {
    restBaseUrl: `${opts.restBase}/v1/channels/${account.channelId}`,
    graphqlUrl: opts.graphqlUrl,
    channelId: account.channelId,
    token: account.token,
    backOfficeJwt: signIdentity(
      { kind: 'backoffice', teamCode: account.teamCode, userId: 'demo-merchant' },
      { ...opts.jwt, expiresInSeconds: 30 * 24 * 3600 },
    ),
  };
  await writeJson(file, credentials);
  return credentials;
}

main().catch((err) => {
  process.stderr.write(`embedded start failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
