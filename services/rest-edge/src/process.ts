import http from 'node:http';
import express from 'express';
import { ConfigError } from '@pf/platform/config';
import { Lifecycle, listen } from '@pf/platform/http/lifecycle';
import { createLogger } from '@pf/platform/logging';
import { busFromConfig } from '@pf/platform/service/process';
import { loadRestEdgeConfig, type RestEdgeConfig } from './config';
import { createRestEdge } from './edge';
import { requestContext } from './http/request-context';

/**
 * Production entry point of the edge: every setting validated before anything starts (a bad one
 * is named and the process exits 78), Redis and the bus connected, `/healthz` and `/readyz`
 * (Redis, gateway and accounts answer), and graceful shutdown on SIGTERM/SIGINT: stop taking
 * requests, finish in-flight ones, stop the event consumer, close pools.
 */
export async function runRestEdgeProcess(): Promise<void> {
  const logger = createLogger('rest-edge');
  let config: RestEdgeConfig;
  try {
    config = loadRestEdgeConfig(process.env);
  } catch (err) {
    logger.fatal({ variables: err instanceof ConfigError ? err.variables : undefined }, (err as Error).message);
    process.exit(78); // EX_CONFIG
  }
  logger.level = config.LOG_LEVEL;

  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  try {
    const bus = busFromConfig(config, 'rest-edge', logger);
    lifecycle.onShutdown('event bus', () => bus.close());

    const edge = await createRestEdge({ config, logger, bus });
    lifecycle.onShutdown('rest edge', () => edge.stop());
    lifecycle.addReadinessCheck('rest-edge', () => edge.ready());

    const root = express();
    root.disable('x-powered-by');
    // The contract version goes on every response, health answers included.
    root.use(requestContext(edge.contract.version));
    lifecycle.mountHealth(root);
    root.use(edge.app);
    const server = http.createServer(root);
    server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
    lifecycle.registerHttpServer('http server', server);

    await edge.start();
    const port = await listen(server, config.PORT, config.HOST);
    logger.info({ port, gateway: config.GATEWAY_URL, accounts: config.ACCOUNTS_URL, rateLimitStore: config.RATE_LIMIT_STORE }, 'rest-edge listening');
  } catch (err) {
    logger.fatal({ err }, 'rest-edge failed to start');
    await lifecycle.shutdown('start failed');
    process.exit(1);
  }
}
