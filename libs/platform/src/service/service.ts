import type { Express } from 'express';
import type { EventBus } from '../bus/bus';
import type { JwtVerifyOptions } from '../identity';
import type { Logger } from '../logging';

/** What a service needs from its wiring; the same in production and in the embedded process. */
export interface ServiceDeps {
  /** Postgres URL; the service uses only its own schema in it. */
  databaseUrl: string;
  bus: EventBus;
  jwt: JwtVerifyOptions;
  logger: Logger;
  /** Source of the service's own settings (validated by the service with loadConfig). */
  env: NodeJS.ProcessEnv;
}

/** A created, not yet started service. */
export interface ServiceInstance {
  /** HTTP app: `/graphql` (subgraphs), plus whatever else the service serves. Health routes are mounted by the runner. */
  app: Express;
  /** Starts background work: outbox relay, consumers, timers. */
  start(): Promise<void>;
  /** Stops background work and closes pools; the runner has already stopped the HTTP server. */
  stop(): Promise<void>;
  /** Throws when a dependency the service needs to answer is unavailable (used by /readyz). */
  ready(): Promise<void>;
  /** Called with the HTTP server that will serve `app`, before it listens (e.g. to answer what Node refuses before express). */
  configureServer?(server: import('node:http').Server): void;
  /** Options the HTTP server serving `app` is made with (those Node takes only then, such as `connectionsCheckingInterval`). */
  serverOptions?: import('node:http').ServerOptions;
  /** Headers on every answer of the service's port, the runner's own routes included (the edge's contract version). */
  answerHeaders?: Record<string, string>;
}

/** One service as the runners see it. */
export interface ServiceDefinition {
  name: string;
  /** Postgres schema the service owns (null for services without tables, such as the edge). */
  schema: string | null;
  /** Absolute path of the service's SQL migrations folder. */
  migrationsDir: string | null;
  defaultPort: number;
  create(deps: ServiceDeps): Promise<ServiceInstance>;
}
