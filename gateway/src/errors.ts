import { randomUUID } from 'node:crypto';
import type { Logger } from '@pf/platform/logging';
import { requestIdOfErrorMet } from '@pf/platform/graphql/error-request-ids';
import { isProblemTransport, Problem } from '@pf/platform/problems';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';

/**
 * The body of a refused call (no or bad identity JWT): a GraphQL error whose `extensions.problem`
 * is the `unauthenticated` Problem, as subgraphs send it.
 */
export function unauthenticatedBody(detail: string) {
  const problem = new Problem('unauthenticated', { detail });
  return { errors: [{ message: detail, extensions: { code: 'UNAUTHENTICATED', problem: problem.toTransport() } }] };
}

/**
 * The caller's mistake without graphql-js's "Did you mean ...?": Apollo hides it from validation
 * errors when introspection is off, but a variable's coercion error (a misspelt enum value or
 * input field) still spelled the schema out.
 */
function withoutSuggestions(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const message = formatted.message.replace(/ ?Did you mean [^?]*\?/g, '');
  return message === formatted.message ? formatted : { ...formatted, message };
}

/**
 * The gateway's `formatError`. Errors that carry a Problem (from a subgraph, or the gateway's own
 * unavailable / bad-gateway ones) pass intact; the caller's GraphQL mistakes (parse, validation,
 * bad input) pass as Apollo formats them; a subgraph's unexpected error keeps the reference its
 * subgraph logged; anything else unexpected is logged here with a new reference and answered
 * generically.
 */
export function formatGatewayError(
  formatted: GraphQLFormattedError,
  error: unknown,
  logger: Logger,
  opts: { hideSuggestions?: boolean } = {},
): GraphQLFormattedError {
  const extensions = formatted.extensions ?? {};
  if (isProblemTransport(extensions.problem)) return formatted;
  const code = extensions.code;
  const unexpected = code === undefined || code === 'INTERNAL_SERVER_ERROR' || code === 'DOWNSTREAM_SERVICE_ERROR';
  if (!unexpected) return opts.hideSuggestions ? withoutSuggestions(formatted) : formatted;
  // Apollo's own refusals of a request (an automatic persisted query whose hash does not match
  // its text) carry a 4xx status but no code, which Apollo fills in as INTERNAL_SERVER_ERROR.
  if (callerStatusOf(error) !== undefined) return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
  if (typeof extensions.reference === 'string') {
    return {
      message: 'An unexpected error occurred.',
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: 'INTERNAL_SERVER_ERROR', reference: extensions.reference },
    };
  }
  const reference = randomUUID();
  logger.error({ err: error, reference, requestId: requestIdOfErrorMet(error), path: formatted.path }, 'unexpected error in the gateway');
  return {
    message: 'An unexpected error occurred.',
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR', reference },
  };
}

/** The 4xx status Apollo gave an error that refuses the caller's request, if it is one. */
function callerStatusOf(error: unknown): number | undefined {
  const status = (error as { extensions?: { http?: { status?: unknown } } } | undefined)?.extensions?.http?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Answers 400 to an operation the gateway could not plan because of how it was written (several
 * operations and no `operationName`, an unknown one, a subscription): @apollo/gateway raises
 * those as INVALID_GRAPHQL from inside execution, which Apollo Server answers 500.
 */
export function invalidOperationStatusPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          if (data == null && errors?.length && errors.every((e) => e.extensions?.code === 'INVALID_GRAPHQL')) response.http.status = 400;
        },
      };
    },
  };
}
