import { randomUUID } from 'node:crypto';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { bearerToken, verifyIdentity, type Identity, type JwtVerifyOptions } from '@pf/platform/identity';
import type { Logger } from '@pf/platform/logging';
import { routeNamed } from '@pf/platform/metrics';
import { Problem } from '@pf/platform/problems';
import { errorRequestIdPlugin } from '@pf/platform/graphql/error-request-ids';
import { graphqlHttpErrors } from '@pf/platform/graphql/http-errors';
import { refuseInvalidUtf8 } from '@pf/platform/http/body-refusal';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { GatewayContext } from './context';
import { formatGatewayError, invalidOperationStatusPlugin, unauthenticatedBody } from './errors';
import { DEFAULT_OPERATION_LIMITS, operationCostPlugin, operationLimitRules, type OperationLimits } from './operation-limits';
import { SubgraphDataSource } from './subgraph-data-source';
import { createSubgraphFetcher, type SubgraphFetcherOptions } from './subgraph-fetcher';

export interface GatewayOptions {
  /** The composed supergraph (gateway/supergraph.graphql), parsed once at start. */
  supergraphSdl: string;
  /** URL per subgraph name; a subgraph not named here keeps the URL composed into the supergraph. */
  subgraphUrls?: Record<string, string>;
  /** How identity JWTs are verified (the same settings as the subgraphs'). */
  jwt: JwtVerifyOptions;
  logger: Logger;
  /** Schema introspection for callers with a valid JWT. Off unless asked for. */
  introspection?: boolean;
  /** Connection pool to the subgraphs. */
  subgraphPool?: SubgraphFetcherOptions;
  /** Bounds of one operation (DEFAULT_OPERATION_LIMITS unless given). */
  operationLimits?: OperationLimits;
}

export interface Gateway {
  /** express app serving `/graphql`. */
  app: Express;
  /** True once the supergraph is loaded and until `stop()`. */
  isReady(): boolean;
  /** Stops Apollo and closes the subgraph connections; stop the HTTP server first. */
  stop(): Promise<void>;
}

/** Caller-supplied request ids are kept when they look like ids; anything else gets a fresh one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The federated gateway: Apollo Gateway on a static supergraph behind Apollo Server on express.
 * Every call must bring `Authorization: Bearer <identity JWT>`; without a valid one it is answered
 * 401 before any parsing or planning. The caller's JWT and request id go on to every subgraph,
 * which checks the JWT again and applies its own visibility rules.
 */
export async function createGateway(opts: GatewayOptions): Promise<Gateway> {
  const { logger } = opts;
  const pool = createSubgraphFetcher(opts.subgraphPool);
  // @apollo/gateway otherwise sends usage metrics to Apollo and probes cloud metadata endpoints
  // (169.254.169.254) at start. We report nothing to third parties; the library reads only this switch.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const gateway = new ApolloGateway({
    supergraphSdl: opts.supergraphSdl,
    logger: logger.child({ component: 'apollo-gateway' }),
    buildService: ({ name, url }) =>
      new SubgraphDataSource({ name, url: opts.subgraphUrls?.[name] ?? url!, fetcher: pool.fetcher, logger }),
  });
  const limits = opts.operationLimits ?? DEFAULT_OPERATION_LIMITS;
  const server = new ApolloServer<GatewayContext>({
    gateway,
    introspection: opts.introspection ?? false,
    includeStacktraceInErrorResponses: false,
    // Without introspection, "Did you mean ...?" in validation errors would spell the schema out.
    hideSchemaDetailsFromClientErrors: !(opts.introspection ?? false),
    validationRules: operationLimitRules(limits),
    parseOptions: { maxTokens: limits.maxTokens },
    // The Lifecycle of the process owns signals and shutdown order.
    stopOnTerminationSignals: false,
    // Compact JSON: the default pretty-prints every response.
    stringifyResult: (result) => JSON.stringify(result),
    plugins: [
      operationCostPlugin<GatewayContext>(limits.maxCost, (context) => context.identity.kind === 'backoffice'),
      invalidOperationStatusPlugin<GatewayContext>(),
      errorRequestIdPlugin<GatewayContext>(),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
    ],
    formatError: (formatted, error) => formatGatewayError(formatted, error, logger, { hideSuggestions: !(opts.introspection ?? false) }),
  });
  await server.start();
  let ready = true;

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(
    '/graphql',
    routeNamed('/graphql'),
    authenticate(opts.jwt),
    // Bytes that are not UTF-8 are refused, not read with U+FFFD in their place (docs/gateway.md).
    express.json({ limit: '2mb', verify: refuseInvalidUtf8 }),
    expressMiddleware(server, { context: async ({ res }) => res.locals.gateway as GatewayContext }),
    graphqlHttpErrors(logger),
  );

  return {
    app,
    isReady: () => ready,
    async stop() {
      ready = false;
      await server.stop();
      await pool.close();
    },
  };
}

function authenticate(jwt: JwtVerifyOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      refuse(res, 'Missing identity token.');
      return;
    }
    let identity: Identity;
    try {
      identity = verifyIdentity(token, jwt);
    } catch (err) {
      if (!(err instanceof Problem)) throw err;
      refuse(res, err.message);
      return;
    }
    const context: GatewayContext = { identity, authorization: `Bearer ${token}`, requestId };
    res.locals.gateway = context;
    next();
  };
}

function refuse(res: Response, detail: string): void {
  res.status(401).setHeader('www-authenticate', 'Bearer').json(unauthenticatedBody(detail));
}
