import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Problem } from '@pf/platform/problems';
import { unstorableTextMembers } from '@pf/platform/text';
import type { OpenApiValidatorOpts } from 'express-openapi-validator/dist/framework/types';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator';
import type { OpenApiDocument, RouteOperation } from './openapi';
import type { OperationOfRequest } from './request-operation';
import { openApiMetadata } from './route-lookup';

/**
 * Request validation against the contract (express-openapi-validator, which supports express 5
 * from its 5.x line). Runs after authentication: a request is validated only once its credentials
 * passed every check of spec section 5. Failures reach the error middleware, which answers 422
 * `validation-failed` naming each field (or 404/405 for paths and methods the document lacks).
 *
 * - a body member holding text the platform cannot keep (a NUL, an unpaired surrogate) is refused
 *   first, naming it;
 * - a documented query parameter whose value's percent-escapes are not UTF-8 (`order-number=%FF`)
 *   is refused first, naming it: the query parser reads such bytes as U+FFFD, a value nobody sent
 *   (a body that is not UTF-8 is refused the same way);
 * - a documented query parameter written in bracket notation (`status[x]=queued`, `status[]=...`) is
 *   refused first, naming it: the validator reads such keys as nested objects (qs), which crashed
 *   its array splitting and silently dropped `__proto__`-style keys, leaving the filter unapplied;
 * - an integer query parameter must be written in decimal digits (the validator's coercion would
 *   read `per-page=1e1` as 10 and `page=0x2` as 2), refused first too, naming it;
 * - a query parameter that is not a list, given more than once (`page=1&page=2`), is refused first,
 *   naming it (the validator would say "must be integer" of a value that is one);
 * - all errors are reported, not only the first;
 * - unknown query parameters are ignored (clients may send parameters of newer minor versions);
 * - security is not checked here: authentication is the edge's own (src/auth);
 * - no multipart step: the document has no multipart body;
 * - the request's operation is found with paths compiled once (see route-lookup.ts), not by the
 *   library's per-request compilation of every path.
 */
export function requestValidator(routing: OpenApiDocument, operationOf: OperationOfRequest): RequestHandler[] {
  const options: OpenApiValidatorOpts = {
    // The validator mutates what it is given; it gets its own copy.
    apiSpec: structuredClone(routing) as never,
    validateRequests: { allowUnknownQueryParameters: true, allErrors: true },
    validateResponses: false,
    validateSecurity: false,
    ignoreUndocumented: false,
    validateApiSpec: true,
    fileUploader: false,
    $refParser: { mode: 'bundle' },
  };
  const validator = new OpenApiValidator(options);
  replaceMetadataStep(validator);
  // What the package's `middleware(options)` does, with the step above replaced.
  const spec = new OpenApiSpecLoader({ apiDoc: options.apiSpec as never, validateApiSpec: true, $refParser: { mode: 'bundle' } }).load();
  // The query checks look at the parameters of the request's own operation (others are unknown there).
  const operationQuery: QueryOfRequest = (req) => operationOf(req).query;
  return [
    refuseUnstorableText,
    refuseUndecodableQuery(operationQuery),
    refuseBracketNotation(operationQuery),
    refuseRepeatedParameters(operationQuery),
    refuseNonDecimalIntegers(operationQuery),
    ...(validator.installMiddleware(spec) as unknown as RequestHandler[]),
  ];
}

/**
 * The documented parameters among the query's `name=value` pairs whose value does not decode as
 * UTF-8 (a `+` is a space, as the query parser reads it), each named once, in the query's order.
 */
export function undecodableQueryParameters(rawQuery: string, names: ReadonlySet<string>): string[] {
  const named = new Set<string>();
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const [rawKey, rawValue] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const key = decodedOrNull(rawKey);
    if (key === null || !names.has(key) || decodedOrNull(rawValue) !== null) continue;
    named.add(key);
  }
  return [...named];
}

function decodedOrNull(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The query parameters of the operation a request goes to (none for a path the document lacks). */
export type QueryOfRequest = (req: Request) => RouteOperation['query'];

/** A query parameter of the request's operation whose value is not percent-encoded UTF-8 is a 422 naming it. */
export function refuseUndecodableQuery(queryOf: QueryOfRequest): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const at = req.originalUrl.indexOf('?');
    const properties = at < 0 ? [] : undecodableQueryParameters(req.originalUrl.slice(at + 1), new Set(queryOf(req).names));
    if (properties.length === 0) next();
    else next(Problem.validation(properties.map((property) => ({ property, message: 'must be percent-encoded UTF-8' }))));
  };
}

/**
 * The parameter a bracket-notation query key addresses, as the validator nests it (`status[x]`
 * and `status[]` address `status`; it drops a key starting with a bracket), or undefined for a
 * plain key. No parameter of the contract is an object, and none has a bracket in its name.
 */
export function bracketNotationTarget(key: string): string | undefined {
  const open = key.indexOf('[');
  return open > 0 ? key.slice(0, open) : undefined;
}

/**
 * A query parameter of the request's operation sent in bracket notation is a 422 naming it; other
 * bracket keys are unknown parameters, ignored like any other.
 */
export function refuseBracketNotation(queryOf: QueryOfRequest): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const documented = new Set(queryOf(req).names);
    const targets = new Set(
      Object.keys(req.query as Record<string, unknown>)
        .map(bracketNotationTarget)
        .filter((name): name is string => name !== undefined && documented.has(name)),
    );
    if (targets.size === 0) next();
    else next(Problem.validation([...targets].map((property) => ({ property, message: `must be sent as ${property}=value; bracket notation is not understood` }))));
  };
}

/** A query parameter of the request's operation that is not a list, sent more than once, is a 422 naming it. */
export function refuseRepeatedParameters(queryOf: QueryOfRequest): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const query = req.query as Record<string, unknown>;
    const { names, lists } = queryOf(req);
    const violations = names
      .filter((name) => !lists.includes(name) && Array.isArray(query[name]))
      .map((property) => ({ property, message: 'must be given once' }));
    if (violations.length === 0) next();
    else next(Problem.validation(violations));
  };
}

/** Digits, with a minus sign allowed so that a negative number gets the range's own message. */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/**
 * An integer query parameter sent in any other notation than decimal digits (`1e1`, `0x2`, `2.0`,
 * ` 7`, `+7` read as ` 7`) is a 422 naming it; the validator checks type and range of the rest.
 */
export function refuseNonDecimalIntegers(queryOf: QueryOfRequest): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const query = req.query as Record<string, unknown>;
    const violations = queryOf(req).integers
      .filter((name) => {
        const value = query[name];
        const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
        return values.some((v) => typeof v !== 'string' || !DECIMAL_INTEGER.test(v));
      })
      .map((property) => ({ property, message: 'must be an integer written in decimal digits' }));
    if (violations.length === 0) next();
    else next(Problem.validation(violations));
  };
}

/** A body member holding text the platform cannot keep (U+0000, an unpaired surrogate) is a 422 naming it. */
const refuseUnstorableText: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
  const violations = unstorableTextMembers(req.body);
  if (violations.length === 0) next();
  else next(Problem.validation(violations));
};

/**
 * `installMiddleware` builds its metadata step by calling the instance's (private)
 * `metadataMiddleware(context, responseApiDoc)` on the first request; an own property of the
 * instance takes its place. Checked here, so a release that renames it fails at start, not silently.
 */
function replaceMetadataStep(validator: OpenApiValidator): void {
  const target = validator as unknown as { metadataMiddleware: unknown };
  if (typeof target.metadataMiddleware !== 'function' || target.metadataMiddleware.length !== 2) {
    throw new Error('express-openapi-validator has no metadataMiddleware(context, responseApiDoc) step: check src/contract/route-lookup.ts against its release');
  }
  target.metadataMiddleware = openApiMetadata;
}
