import path from 'node:path';
import { createSubgraphService } from '@pf/platform/service/subgraph-service';
import type { ServiceDefinition } from '@pf/platform/service/service';
import { loadAccountsConfig } from './config';
import { createPrismaClient } from './db';
import { resolvers, type AccountsContext } from './graphql/resolvers';
import { loadAccountsTypeDefs } from './graphql/schema';
import { AccountsUseCases } from './use-cases';
import { ACCOUNTS_SCHEMA } from './use-cases/deps';

export { ACCOUNTS_SDL_PATH, loadAccountsTypeDefs } from './graphql/schema';
export { seedDemoAccount, type DemoAccount, type DemoAccountOptions } from './seed';
export { AccountsUseCases } from './use-cases';
export { createPrismaClient } from './db';
export { hashApiToken, API_TOKEN_PREFIX } from './domain/tokens';

/** Absolute path of the accounts SQL migrations (next to src/ and dist/, in the package root). */
export const ACCOUNTS_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

/**
 * The accounts subgraph: teams, channels (with each team's Standard channel) and channel API
 * tokens, on Postgres schema `accounts`, events through its outbox. Introspection is on except
 * when NODE_ENV=production.
 */
export const accountsService: ServiceDefinition = {
  name: 'accounts',
  schema: ACCOUNTS_SCHEMA,
  migrationsDir: ACCOUNTS_MIGRATIONS_DIR,
  defaultPort: 4101,
  async create(deps) {
    const cfg = loadAccountsConfig(deps.env);
    const prisma = createPrismaClient(deps.databaseUrl, cfg.ACCOUNTS_DB_POOL_MAX);
    const accounts = new AccountsUseCases({ prisma });
    return createSubgraphService<AccountsContext>({
      name: 'accounts',
      schema: ACCOUNTS_SCHEMA,
      databaseUrl: deps.databaseUrl,
      bus: deps.bus,
      jwt: deps.jwt,
      logger: deps.logger,
      typeDefs: loadAccountsTypeDefs(),
      resolvers,
      extendContext: (base) => ({ ...base, accounts }),
      onStop: () => prisma.$disconnect(),
      introspection: cfg.NODE_ENV !== 'production',
    });
  },
};
