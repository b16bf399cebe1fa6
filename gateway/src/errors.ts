import { randomUUID } from 'node:crypto';
import type { Logger } from '@pf/platform/logging';
import { isProblemTransport, Problem } from '@pf/platform/problems';
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
  if (typeof extensions.reference === 'string') {
    return {
      message: 'An unexpected error occurred.',
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: 'INTERNAL_SERVER_ERROR', reference: extensions.reference },
    };
  }
  const reference = randomUUID();
  logger.error({ err: error, reference, path: formatted.path }, 'unexpected error in the gateway');
  return {
    message: 'An unexpected error occurred.',
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR', reference },
  };
}
