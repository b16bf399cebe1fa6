import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import express, { type Express } from 'express';
import { defaultFieldResolver, GraphQLError, isObjectType, type DocumentNode, type GraphQLSchema } from 'graphql';
import { bearerToken, verifyIdentity, type Identity, type JwtVerifyOptions } from '../identity';
import { LogThrottle, type Logger } from '../logging';
import { errorRequestIdPlugin, requestIdOfErrorMet } from './error-request-ids';
import { routeNamed } from '../metrics';
import { Problem } from '../problems';
import { unstorableTextMembers } from '../text';
import { refuseInvalidUtf8 } from '../http/body-refusal';
import { graphqlHttpErrors } from './http-errors';
import { isDatabaseUnavailable } from '../db/unreachable';

/** What every resolver receives. */
export interface SubgraphContext {
  identity: Identity;
  logger: Logger;
  requestId: string;
}

export interface SubgraphOptions<C extends SubgraphContext> {
  name: string;
  typeDefs: DocumentNode;
  resolvers: GraphQLResolverMap<C>;
  jwt: JwtVerifyOptions;
  logger: Logger;
  /** Adds service-specific members (use cases, loaders) to the per-request context. */
  extendContext?: (base: SubgraphContext) => C | Promise<C>;
  /** Introspection is for development only. */
  introspection?: boolean;
}

/**
 * Builds a federation subgraph behind express: `/graphql` only for callers with a valid identity
 * JWT (forwarded by the gateway), typed Problems carried in error extensions, unexpected errors
 * logged with a reference and answered generically.
 */
export async function createSubgraph<C extends SubgraphContext>(
  opts: SubgraphOptions<C>,
): Promise<{ app: Express; server: ApolloServer<C> }> {
  const server = new ApolloServer<C>({
    schema: refusingUnstorableArguments(buildSubgraphSchema([{ typeDefs: opts.typeDefs, resolvers: opts.resolvers as never }])),
    introspection: opts.introspection ?? false,
    includeStacktraceInErrorResponses: false,
    // Apollo's own SIGTERM/SIGINT handler would stop the server and re-raise the signal, killing the
    // process before the Lifecycle's graceful shutdown (in-flight requests, relay, bus) has run.
    stopOnTerminationSignals: false,
    // No Apollo usage reporting here, so federated traces would only cost time on every request.
    // No cache hints either: the cache-control plugin wraps every field resolver (a quarter of the
    // time of a 5000-row page) to compute headers nobody reads.
    plugins: [ApolloServerPluginCacheControlDisabled(), ApolloServerPluginInlineTraceDisabled(), errorRequestIdPlugin<C>()],
    formatError: (formatted, error) => formatSubgraphError(formatted, error, opts.logger),
  });
  await server.start();

  const app = express();
  app.disable('x-powered-by');
  // Callers are the gateway and other services, which never revalidate: hashing every answer for
  // an ETag is CPU spent for nothing (it showed in the orders benchmark's profile).
  app.disable('etag');
  app.use(
    '/graphql',
    routeNamed('/graphql'),
    // Bytes that are not UTF-8 are refused, not read with U+FFFD in their place (docs/gateway.md).
    express.json({ limit: '2mb', verify: refuseInvalidUtf8 }),
    expressMiddleware(server, {
      context: async ({ req }) => {
        const token = bearerToken(req.headers.authorization);
        if (!token) throw unauthenticated('Missing identity token.');
        let identity: Identity;
        try {
          identity = verifyIdentity(token, opts.jwt);
        } catch (err) {
          throw unauthenticated((err as Error).message);
        }
        const requestId = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
        const base: SubgraphContext = { identity, requestId, logger: opts.logger.child({ requestId }) };
        return opts.extendContext ? opts.extendContext(base) : (base as C);
      },
    }),
    graphqlHttpErrors(opts.logger),
  );
  return { app, server };
}

/**
 * Every field that takes arguments first refuses text the platform cannot keep (a NUL, an unpaired
 * surrogate) anywhere in them, naming the argument's member (`input.trackingDetails[0].carrier`):
 * a validation failure before the resolver runs, so nothing is changed and nothing is stored with
 * U+FFFD in place of the surrogate (as Prisma would). Services may check their own fields earlier
 * and name them their way.
 */
export function refusingUnstorableArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        const violations = unstorableTextMembers(args, 'arguments');
        if (violations.length > 0) throw Problem.validation(violations);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}

function unauthenticated(detail: string): GraphQLError {
  const problem = new Problem('unauthenticated', { detail });
  return new GraphQLError(detail, {
    extensions: { code: 'UNAUTHENTICATED', problem: problem.toTransport(), http: { status: 401 } },
  });
}

/** One outage line per 10 s per logger: every request of an outage fails alike. */
const outageLogThrottles = new WeakMap<Logger, LogThrottle>();
function outageLogThrottle(logger: Logger): LogThrottle {
  let throttle = outageLogThrottles.get(logger);
  if (!throttle) outageLogThrottles.set(logger, (throttle = new LogThrottle(10_000)));
  return throttle;
}

/** Problems keep their type and members; anything else becomes a generic error with a reference. */
export function formatSubgraphError(
  formatted: ReturnType<NonNullable<ConstructorParameters<typeof ApolloServer>[0]['formatError']>>,
  error: unknown,
  logger: Logger,
) {
  const original = unwrapResolverError(error);
  const requestId = requestIdOfErrorMet(error);
  if (original instanceof Problem) {
    logger.debug({ problem: original.problemType, requestId }, 'problem raised');
    return {
      message: original.message,
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: original.problemType, problem: original.toTransport() },
    };
  }
  if (isUnstorableText(original)) {
    // Text holding a NUL or an unpaired surrogate reached PostgreSQL, which refuses it: the
    // caller's input, not our fault.
    const problem = Problem.validation([
      { property: formatted.path?.join('.') ?? 'input', message: 'Text must be valid Unicode without the NUL character (U+0000).' },
    ]);
    return { message: problem.message, ...(formatted.path ? { path: formatted.path } : {}), extensions: { code: problem.problemType, problem: problem.toTransport() } };
  }
  if (isDatabaseUnavailable(original)) {
    // An outage (or a database too busy to finish), not a bug: worth retrying, and a caller (a
    // service's timer, a back-office screen) can tell it from an unexpected error. The REST edge
    // answers it as any 5xx. A change under way when the connection went may have committed.
    const problem = new Problem('unavailable', {
      detail: 'The service cannot use its database (or reach a service it depends on) right now; try again shortly. A change under way may or may not have been made.',
    });
    const logged = outageLogThrottle(logger).take();
    if (logged) logger.warn({ err: original, requestId, path: formatted.path, suppressed: logged.suppressed }, 'database unavailable: answered unavailable (one line per 10 s)');
    return { message: problem.message, ...(formatted.path ? { path: formatted.path } : {}), extensions: { code: problem.problemType, problem: problem.toTransport() } };
  }
  const code = formatted.extensions?.code;
  // GraphQL validation and parse errors are the caller's fault and safe to show.
  if (code && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  const reference = randomUUID();
  logger.error({ err: original, reference, requestId, path: formatted.path }, 'unexpected error in resolver');
  return {
    message: 'An unexpected error occurred.',
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR', reference },
  };
}

/**
 * PostgreSQL's refusal of text it cannot keep, as pg reports it (`code`, `detail`) or as Prisma
 * wraps it (in its message): a NUL character in text (SQLSTATE 22021), or an unpaired surrogate
 * in JSON, such as an event's (22P02, "Unicode low surrogate must follow a high surrogate").
 */
export function isUnstorableText(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, detail } = err as { code?: unknown; detail?: unknown };
  if (code === '22021') return true;
  if (code === '22P02' && typeof detail === 'string' && UNPAIRED_SURROGATE.test(detail)) return true;
  return /Code: `22021`/.test(err.message) || /invalid byte sequence for encoding "UTF8": 0x00/.test(err.message) || UNPAIRED_SURROGATE.test(err.message);
}

const UNPAIRED_SURROGATE = /Unicode (low|high) surrogate must (not )?follow a (high )?surrogate/;

