import { readFile } from 'node:fs/promises';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { loadGatewayConfig } from './config';
import { createGateway } from './gateway';

export { createGateway, type Gateway, type GatewayOptions } from './gateway';
export { gatewayConfigShape, loadGatewayConfig, type GatewayConfig } from './config';
export { DEFAULT_SUPERGRAPH_PATH, readSubgraphList, subgraphUrlsFromEnv, type SubgraphEntry } from './subgraphs';
export type { GatewayContext } from './context';

/**
 * The gateway as the runners see it (src/main.ts in production, the embedded launcher): no
 * database schema, no events; the supergraph file and subgraph URLs come from `deps.env`.
 */
export const gatewayService: ServiceDefinition = {
  name: 'gateway',
  schema: null,
  migrationsDir: null,
  defaultPort: 4000,
  async create(deps) {
    const cfg = loadGatewayConfig(deps.env);
    const supergraphSdl = await readFile(cfg.SUPERGRAPH_PATH, 'utf8');
    const gateway = await createGateway({
      supergraphSdl,
      subgraphUrls: cfg.subgraphUrls,
      jwt: deps.jwt,
      logger: deps.logger,
      introspection: cfg.GATEWAY_INTROSPECTION,
      subgraphPool: { connections: cfg.GATEWAY_SUBGRAPH_CONNECTIONS, timeoutMs: cfg.GATEWAY_SUBGRAPH_TIMEOUT_MS },
      operationLimits: cfg.operationLimits,
    });
    return {
      app: gateway.app,
      async start() {},
      stop: () => gateway.stop(),
      async ready() {
        if (!gateway.isReady()) throw new Error('the supergraph is not loaded');
      },
    };
  },
};
