import path from 'node:path';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import { loadWebhooksTypeDefs } from './graphql/schema';

export { WEBHOOKS_SDL_PATH, loadWebhooksTypeDefs } from './graphql/schema';

/** Absolute path of the webhooks SQL migrations (next to src/ and dist/, in the package root). */
export const WEBHOOKS_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The webhooks subgraph: webhook URLs and signing secrets per channel, durable delivery and
 * stock batching windows, on Postgres schema `webhooks`. Until its features arrive it declares no
 * types of its own; it already has its schema (with the platform's outbox and inbox tables), its
 * outbox relay and its health checks.
 */
export const webhooksService: ServiceDefinition = {
  name: 'webhooks',
  schema: 'webhooks',
  migrationsDir: WEBHOOKS_MIGRATIONS_DIR,
  defaultPort: 4105,
  async create(deps) {
    return createSubgraphService({
      name: 'webhooks',
      schema: 'webhooks',
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadWebhooksTypeDefs(),
      resolvers: {},
    });
  },
};
