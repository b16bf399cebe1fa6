import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from './openapi';

/**
 * Request validation against the contract (express-openapi-validator, which supports express 5
 * from its 5.x line). Runs after authentication: a request is validated only once its credentials
 * passed every check of spec section 5. Failures reach the error middleware, which answers 422
 * `validation-failed` naming each field (or 404/405 for paths and methods the document lacks).
 *
 * - all errors are reported, not only the first;
 * - unknown query parameters are ignored (clients may send parameters of newer minor versions);
 * - security is not checked here: authentication is the edge's own (src/auth).
 */
export function requestValidator(routing: OpenApiDocument): RequestHandler[] {
  return OpenApiValidator.middleware({
    // The validator mutates what it is given; it gets its own copy.
    apiSpec: structuredClone(routing) as never,
    validateRequests: { allowUnknownQueryParameters: true, allErrors: true },
    validateResponses: false,
    validateSecurity: false,
    ignoreUndocumented: false,
    validateApiSpec: true,
  }) as unknown as RequestHandler[];
}
