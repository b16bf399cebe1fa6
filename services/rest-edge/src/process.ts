import http from 'node:http';
import { ConfigError } from '@pf/platform/config';
import { Lifecycle, listen } from '@pf/platform/http/lifecycle';
import { createLogger, type Logger } from '@pf/platform/logging';
import { mountMetrics, startProcessMetrics } from '@pf/platform/metrics';
import { busFromConfig } from '@pf/platform/service/process';
import { loadRestEdgeConfig, type RestEdgeConfig } from './config';
import { createRestEdge, type RestEdge } from './edge';
import { answerClientErrors, slowClientLimits } from './http/client-error';

export interface RestEdgeProcess {
  config: RestEdgeConfig;
  edge: RestEdge;
  lifecycle: Lifecycle;
  server: http.Server;
  port: number;
}

/**
 * The edge as one production process: the bus from config, `/healthz` and `/readyz` (Redis, the
 * gateway and accounts answer) next to the API, and a Lifecycle that shuts down in order: stop
 * taking requests and finish in-flight ones, stop the event consumer and close pools, close the
 * bus. Throws a `ConfigError` naming every bad variable before anything starts. `signals`: SIGTERM
 * and SIGINT stop it gracefully from the moment the configuration is read (a start waiting for an
 * unreachable broker takes seconds, and a pod may be told to stop meanwhile).
 */
export async function startRestEdgeProcess(source: NodeJS.ProcessEnv, logger: Logger, opts: { signals?: boolean } = {}): Promise<RestEdgeProcess> {
  const config = loadRestEdgeConfig(source);
  logger.level = config.LOG_LEVEL;
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  if (opts.signals) lifecycle.installSignalHandlers();
  try {
    const bus = busFromConfig(config, 'rest-edge', logger);
    lifecycle.onShutdown('event bus', () => bus.close());

    // The health answers are the edge app's first routes, so they get the contract version header too.
    startProcessMetrics('rest-edge');
    const edge = await createRestEdge({
      config,
      logger,
      bus,
      mountFirst: (app) => {
        mountMetrics(app);
        lifecycle.mountHealth(app);
      },
    });
    lifecycle.onShutdown('rest edge', () => edge.stop());
    lifecycle.addReadinessCheck('rest-edge', () => edge.ready());

    const server = http.createServer(slowClientLimits(config), edge.app);
    server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
    answerClientErrors(server, edge.contract.version);
    lifecycle.registerHttpServer('http server', server);

    await edge.start();
    const port = await listen(server, config.PORT, config.HOST);
    logger.info({ port, gateway: config.GATEWAY_URL, accounts: config.ACCOUNTS_URL, rateLimitStore: config.RATE_LIMIT_STORE }, 'rest-edge listening');
    return { config, edge, lifecycle, server, port };
  } catch (err) {
    await lifecycle.shutdown('start failed');
    throw err;
  }
}

/** `src/main.ts`: exits 78 on bad configuration, 1 when the start fails; SIGTERM/SIGINT stop it gracefully. */
export async function runRestEdgeProcess(): Promise<void> {
  const logger = createLogger('rest-edge');
  try {
    await startRestEdgeProcess(process.env, logger, { signals: true });
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal({ variables: err.variables }, err.message);
      process.exit(78); // EX_CONFIG
    }
    logger.fatal({ err }, 'rest-edge failed to start');
    process.exit(1);
  }
}
