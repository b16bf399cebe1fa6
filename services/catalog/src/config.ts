import { commonConfigShape, env, loadConfig } from '@pf/platform/config';

/** Settings of the catalog service itself, read from the environment (ServiceDeps.env). */
export const catalogConfigShape = {
  NODE_ENV: commonConfigShape.NODE_ENV,
  /** Connections of the Prisma pool (the outbox relay has its own small pool). */
  CATALOG_DB_POOL_MAX: env.int(10, 1, 200),
};

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;

export function loadCatalogConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(catalogConfigShape, source);
}
