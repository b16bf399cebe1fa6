import type { ServiceDefinition } from '@pf/platform/service/service';
import { loadRestEdgeConfig } from './config';
import { answerClientErrors, slowClientLimits } from './http/client-error';
import { createRestEdge } from './edge';
import { SERVICE_API_VERSION_HEADER } from './http/request-context';

export { createRestEdge, type RestEdge, type RestEdgeOptions } from './edge';
export { loadRestEdgeConfig, restEdgeConfigShape, type RestEdgeConfig } from './config';
export { loadContract, OPENAPI_PATH, type Contract } from './contract/openapi';
export { InMemoryRateLimiter } from './rate-limit/memory';
export { RedisRateLimiter } from './rate-limit/redis';
export type { RateLimiter, RateLimits } from './rate-limit/rate-limiter';

/**
 * The edge as the runners see it (the embedded launcher; `src/main.ts` runs it with its own
 * process wiring). Settings come from `deps.env` (see config.ts); the identity JWT settings
 * default to `deps.jwt`, and with an HS* algorithm the signing key defaults to the shared secret
 * `deps.jwt.key`. `RATE_LIMIT_STORE=memory` selects the in-memory rate limiter (one process only).
 */
export const restEdgeService: ServiceDefinition = {
  name: 'rest-edge',
  schema: null,
  migrationsDir: null,
  defaultPort: 8080,
  async create(deps) {
    const source: NodeJS.ProcessEnv = { ...deps.env };
    source.JWT_ALGORITHM ||= deps.jwt.algorithm;
    source.JWT_ISSUER ||= deps.jwt.issuer;
    source.JWT_AUDIENCE ||= deps.jwt.audience;
    // With HMAC the verification secret is also the signing key.
    if (deps.jwt.algorithm.startsWith('HS')) source.JWT_SIGNING_KEY ||= deps.jwt.key;
    const config = loadRestEdgeConfig(source);
    const edge = await createRestEdge({ config, logger: deps.logger, bus: deps.bus });
    return {
      app: edge.app,
      start: () => edge.start(),
      stop: () => edge.stop(),
      ready: () => edge.ready(),
      configureServer: (server) => answerClientErrors(server, edge.contract.version),
      serverOptions: slowClientLimits(config),
      // The runner's health and metrics answers carry the contract version like the API's.
      answerHeaders: { [SERVICE_API_VERSION_HEADER]: edge.contract.version },
    };
  },
};
