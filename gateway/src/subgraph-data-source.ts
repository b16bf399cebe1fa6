import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { Logger } from '@pf/platform/logging';
import { isProblemTransport, Problem } from '@pf/platform/problems';
import { GraphQLError } from 'graphql';
import type { GatewayContext } from './context';
import { answersForEach, distinctRepresentations, errorPathForFirstOccurrence } from './entity-representations';
import { SubgraphUnreachableError, type Fetcher } from './subgraph-fetcher';

type FetcherResponse = Awaited<ReturnType<Fetcher>>;
type SubgraphResponse = Awaited<ReturnType<RemoteGraphQLDataSource['process']>>;

/**
 * How the gateway calls one subgraph. The caller's identity JWT and request id go with every
 * call (each subgraph verifies the JWT itself). Errors in a subgraph's GraphQL response pass
 * through @apollo/gateway with their extensions, `problem` included; this class turns the
 * failures that have no GraphQL response (unreachable subgraph, non-2xx, not JSON) into
 * `unavailable` / `bad-gateway` Problems, keeping a subgraph's own Problem when it sent one.
 */
export class SubgraphDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  private readonly subgraph: string;
  private readonly logger: Logger;
  /** What errorFromResponse saw of the answers it turned into bad-gateway, for the log line. */
  private readonly httpErrors = new WeakMap<GraphQLError, { status: number; body: unknown }>();

  constructor(opts: { name: string; url: string; fetcher: Fetcher; logger: Logger }) {
    super({ url: opts.url, fetcher: opts.fetcher, apq: false, honorSubgraphCacheControlHeader: false });
    this.subgraph = opts.name;
    this.logger = opts.logger;
  }

  /**
   * An `_entities` fetch of the query plan sends each distinct representation once
   * (entity-representations.ts). Only those: a root fetch carries the client's own variables,
   * which may be called `representations` too.
   */
  override async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<SubgraphResponse> {
    const asked = options.request.variables?.['representations'];
    if (!Array.isArray(asked) || asked.length < 2 || !isEntitiesFetch(options.request.query)) return super.process(options);
    const { distinct, positionOf } = distinctRepresentations(asked);
    if (distinct.length === asked.length) return super.process(options);
    const response = await super.process({ ...options, request: { ...options.request, variables: { ...options.request.variables, representations: distinct } } });
    const entities = response.data?.['_entities'];
    // An answer of another length is the subgraph's fault: left as it is, for the gateway's own check to refuse.
    if (Array.isArray(entities) && entities.length !== distinct.length) return response;
    return {
      ...response,
      ...(Array.isArray(entities) ? { data: { ...response.data, _entities: answersForEach(entities, positionOf) } } : {}),
      ...(response.errors ? { errors: response.errors.map((e) => ({ ...e, path: errorPathForFirstOccurrence(e.path, positionOf) })) } : {}),
    };
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    const headers = request.http!.headers;
    // Only operations carry a caller; the gateway does no health checks or schema loading (static supergraph).
    if (context.authorization) headers.set('authorization', context.authorization);
    if (context.requestId) headers.set('x-request-id', context.requestId);
  }

  override async errorFromResponse(response: FetcherResponse): Promise<GraphQLError> {
    const body = await this.parseBody(response).catch(() => undefined);
    const first = firstError(body);
    const problem = first?.extensions?.problem;
    // e.g. 401 from a subgraph that refuses the identity: its verdict, not ours. Not a refusal of
    // the HTTP request itself (a body over the subgraph's limit, built by the gateway's plan from a
    // short operation): the caller sent nothing wrong, so it is the gateway's bad-gateway.
    if (first && isProblemTransport(problem) && problem.problemType !== 'validation-failed') {
      return new GraphQLError(first.message, { extensions: { code: first.extensions?.code ?? problem.problemType, problem } });
    }
    const error = problemError(new Problem('bad-gateway', { detail: 'A service needed for this request gave an invalid answer.' }), 'BAD_GATEWAY');
    // Logged in didEncounterError, which knows the request (its id).
    this.httpErrors.set(error, { status: response.status, body });
    return error;
  }

  override didEncounterError(error: Error, _request: unknown, _response?: unknown, context?: GatewayContext): void {
    const requestId = context?.requestId;
    if (error instanceof GraphQLError) {
      const http = this.httpErrors.get(error);
      if (http) this.logger.error({ subgraph: this.subgraph, requestId, ...http }, 'subgraph answered with an HTTP error');
      throw error;
    }
    if (error instanceof SubgraphUnreachableError) {
      this.logger.error({ subgraph: this.subgraph, requestId, err: error }, 'subgraph unreachable');
      throw problemError(new Problem('unavailable', { detail: 'A service needed for this request is unavailable.' }), 'SERVICE_UNAVAILABLE');
    }
    this.logger.error({ subgraph: this.subgraph, requestId, err: error }, 'invalid subgraph response');
    throw problemError(new Problem('bad-gateway', { detail: 'A service needed for this request gave an invalid answer.' }), 'BAD_GATEWAY');
  }
}

/** The planner's entity fetch: its operation selects `_entities`, which no client operation can (the API schema has no such field). */
function isEntitiesFetch(query: string | undefined): boolean {
  return typeof query === 'string' && /\b_entities\s*\(/.test(query);
}

function problemError(problem: Problem, code: string): GraphQLError {
  return new GraphQLError(problem.message, { extensions: { code, problem: problem.toTransport() } });
}

interface WireError {
  message: string;
  extensions?: { code?: string; problem?: unknown };
}

function firstError(body: unknown): WireError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const first = errors[0] as WireError;
  return typeof first?.message === 'string' ? first : undefined;
}
