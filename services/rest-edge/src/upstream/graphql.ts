import { Pool } from 'undici';
import { isProblemTransport, Problem } from '@pf/platform/problems';

/**
 * A GraphQL operation the edge sends, built once at start: the request body's constant part is
 * serialised ahead, so a request only serialises its variables.
 */
export interface GraphqlOperation<Variables, Data> {
  readonly name: string;
  readonly document: string;
  /** `{"operationName":...,"query":...,"variables":` — completed with the variables and `}`. */
  readonly bodyPrefix: string;
  /** Phantom members that carry the types. */
  readonly __types?: { variables: Variables; data: Data };
}

export function defineOperation<Variables, Data>(document: string): GraphqlOperation<Variables, Data> {
  const name = /^\s*(?:query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(document)?.[1];
  if (!name) throw new Error(`GraphQL operation has no name: ${document.slice(0, 60)}`);
  const compact = document.replace(/\s+/g, ' ').trim();
  return {
    name,
    document: compact,
    bodyPrefix: `{"operationName":${JSON.stringify(name)},"query":${JSON.stringify(compact)},"variables":`,
  };
}

/**
 * An upstream answered something other than data or a typed Problem: a transport failure, a
 * non-JSON body, an untyped GraphQL error. The client sees a generic 500; the log gets this.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly upstream: string,
    readonly details: { status?: number; errors?: unknown; operation?: string } = {},
  ) {
    super(message);
  }
}

/** An upstream that could not be reached or gave no answer in time: an outage, not a fault of ours. */
export class UpstreamUnreachableError extends UpstreamError {
  override name = 'UpstreamUnreachableError';
}

export interface GraphqlUpstreamOptions {
  /** Name for logs (`gateway`, `accounts`). */
  name: string;
  url: string;
  connections: number;
  timeoutMs: number;
}

export interface CallOptions {
  /** The identity JWT the call carries. */
  bearer: string;
  requestId: string;
}

interface GraphqlResponse {
  data?: unknown;
  errors?: { message?: string; extensions?: { problem?: unknown; code?: unknown } }[];
}

/** A keep-alive connection pool to one GraphQL endpoint. */
export class GraphqlUpstream {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(private readonly opts: GraphqlUpstreamOptions) {
    const url = new URL(opts.url);
    this.path = url.pathname + url.search;
    this.pool = new Pool(url.origin, {
      connections: opts.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  /**
   * Sends the operation and returns its `data`. A GraphQL error carrying a Problem
   * (`extensions.problem`) is rethrown as that Problem, so the edge answers it like any other;
   * anything else is an `UpstreamError`.
   */
  async execute<V, D>(op: GraphqlOperation<V, D>, variables: V, call: CallOptions): Promise<D> {
    let status: number;
    let payload: GraphqlResponse;
    try {
      const res = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${call.bearer}`,
          'x-request-id': call.requestId,
        },
        body: `${op.bodyPrefix}${JSON.stringify(variables ?? {})}}`,
      });
      status = res.statusCode;
      const text = await res.body.text();
      try {
        payload = JSON.parse(text) as GraphqlResponse;
      } catch {
        throw new UpstreamError(`${this.opts.name} answered ${status} with a body that is not JSON`, this.opts.name, {
          status,
          operation: op.name,
        });
      }
    } catch (err) {
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamUnreachableError(`${this.opts.name} could not be reached: ${(err as Error).message}`, this.opts.name, {
        operation: op.name,
      });
    }

    if (payload.errors?.length) {
      const typed = payload.errors.find((e) => isProblemTransport(e.extensions?.problem));
      if (typed) {
        const problem = Problem.fromTransport(typed.extensions!.problem as Parameters<typeof Problem.fromTransport>[0]);
        // Our own identity JWT was refused: a fault of the platform, not of the client's credentials.
        if (problem.problemType !== 'unauthenticated') throw problem;
      }
      throw new UpstreamError(`${this.opts.name} answered GraphQL errors`, this.opts.name, {
        status,
        errors: payload.errors,
        operation: op.name,
      });
    }
    if (status !== 200 || payload.data === undefined || payload.data === null) {
      throw new UpstreamError(`${this.opts.name} answered ${status} without data`, this.opts.name, { status, operation: op.name });
    }
    return payload.data as D;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
