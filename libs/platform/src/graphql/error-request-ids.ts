import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';

/**
 * The request id of each error a GraphQL request met, for the lines `formatError` logs: Apollo
 * gives `formatError` the error but not the request. Tagged by `errorRequestIdPlugin`, whose
 * `didEncounterErrors` runs before the errors are formatted.
 */
const requestIdOfError = new WeakMap<object, string>();

/** Tags the errors of each request with the request id of its context (`contextValue.requestId`). */
export function errorRequestIdPlugin<C extends { requestId?: string }>(): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ contextValue, errors }) {
          const requestId = (contextValue as Partial<C> | undefined)?.requestId;
          if (!requestId) return;
          for (const err of errors) {
            const original = unwrapResolverError(err);
            requestIdOfError.set(err, requestId);
            if (original !== null && typeof original === 'object') requestIdOfError.set(original, requestId);
          }
        },
      };
    },
  };
}

/** The request id the error was met in, if its request had one. */
export function requestIdOfErrorMet(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  return requestIdOfError.get(error) ?? requestIdOfError.get(unwrapResolverError(error) as object);
}
