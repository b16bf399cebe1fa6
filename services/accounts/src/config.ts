import { commonConfigShape, env, loadConfig } from '@pf/platform/config';

/** Settings of the accounts service itself, read from the environment (ServiceDeps.env). */
export const accountsConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  /** Connections of the Prisma pool (the outbox relay has its own small pool). */
  ACCOUNTS_DB_POOL_MAX: env.int(10, 1, 200),
};

export type AccountsConfig = ReturnType<typeof loadAccountsConfig>;

export function loadAccountsConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(accountsConfigShape, source);
}
