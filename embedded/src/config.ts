import path from 'node:path';
import { env, loadConfig } from '@pf/platform/config';

/** Settings of `npm start` (the embedded wiring); the keys are the environment variable names. */
export const embeddedConfigShape = {
  /** Where the embedded PostgreSQL data, the installation secret and the demo credentials live. */
  PF_DATA_DIR: env.string(path.resolve(__dirname, '..', '..', '.data')),
  /** Address every embedded server listens on (loopback by default: it is a development system). */
  PF_HOST: env.string('127.0.0.1'),
  /** Port of the REST Channel API. */
  PF_REST_PORT: env.port(8080),
  /** Port of the GraphQL gateway. */
  PF_GATEWAY_PORT: env.port(4000),
  /** Port of the embedded PostgreSQL cluster. */
  PF_POSTGRES_PORT: env.port(54329),
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
};

export function loadEmbeddedConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(embeddedConfigShape, source);
}
