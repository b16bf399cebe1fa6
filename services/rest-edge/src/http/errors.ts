import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import { bodyRefusal } from '@pf/platform/http/body-refusal';
import type { Logger } from '@pf/platform/logging';
import { Problem, type Violation } from '@pf/platform/problems';
import { onePerProperty, onTheCountAlone, propertyOfPointer } from '../domain/violations';
import { UpstreamError, UpstreamUnreachableError } from '../upstream/graphql';
import { NOT_JSON } from './body';
import { requestIdOf } from './request-context';

/** The one detail of every 500: nothing about the cause reaches the client, only the reference. */
export const INTERNAL_DETAIL = 'An unexpected error occurred. Quote the reference when contacting support.';

type ValidatorError = InstanceType<typeof validatorErrors.BadRequest>;

/** An error the edge answers with a problem, with any headers the answer needs (`Allow`). */
interface Answer {
  problem: Problem;
  headers?: Record<string, string>;
}

/**
 * Turns any error into the problem that answers it, or undefined when it is unexpected.
 * Problems (the edge's own and the subgraphs', carried through the gateway) pass as they are;
 * the validator's and the body parser's errors become the contract's statuses.
 */
export function answerFor(err: unknown, undecodablePathDetail?: () => string | undefined): Answer | undefined {
  if (err instanceof Problem) return err.status >= 500 ? undefined : { problem: err };
  if (err instanceof UpstreamError) return undefined;
  if (isValidatorError(err)) return validatorAnswer(err);
  const bodyError = bodyParserAnswer(err);
  if (bodyError) return bodyError;
  // The router could not decode the path (e.g. a bad percent-escape): it names no resource (in
  // the words of the resource the path is under, when the edge's routes give some: rule O1's one
  // body for every order a channel cannot see).
  if (err instanceof URIError || (isHttpError(err) && err.status === 400 && /URI/i.test(String((err as Error).message)))) {
    return { problem: Problem.notFound(undecodablePathDetail?.() ?? 'No resource has this path.') };
  }
  return undefined;
}

function validatorAnswer(err: ValidatorError): Answer | undefined {
  switch (err.status) {
    case 400:
      return { problem: Problem.validation(violationsOf(err)) };
    case 404:
      return { problem: Problem.notFound('No endpoint has this path.') };
    case 405:
      return {
        problem: new Problem('method-not-allowed', { detail: `This endpoint does not answer ${methodOf(err)}.` }),
        headers: err.headers?.Allow ? { Allow: withHead(err.headers.Allow) } : {},
      };
    case 413:
      return { problem: Problem.validation([{ property: 'body', message: 'The request body is too large.' }]) };
    case 415:
      return {
        problem: Problem.validation([{ property: 'body', message: NOT_JSON }]),
      };
    default:
      // 500 (the document could not be loaded) and anything else are the platform's fault.
      return undefined;
  }
}

/**
 * The validator's Allow lists the document's methods (route-lookup keeps the library's, its spec
 * checks that); the edge answers HEAD wherever GET is, so its 405 names HEAD there too.
 */
function withHead(allow: string): string {
  const methods = allow.split(',').map((m) => m.trim());
  return methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'].join(', ') : allow;
}

function violationsOf(err: ValidatorError): Violation[] {
  const items = err.errors?.length ? onTheCountAlone(err.errors) : [{ path: '/body', message: err.message }];
  return onePerProperty(items.map((e) => ({ property: propertyOfPointer(e.path), message: e.message })));
}

function methodOf(err: ValidatorError): string {
  return /^(\w+) method not allowed/.exec(err.message)?.[1] ?? 'this method';
}

/** body-parser's errors (`bodyRefusal`), its `verify` step's refusals (not UTF-8, a structure refused) among them. */
function bodyParserAnswer(err: unknown): Answer | undefined {
  const violation = bodyRefusal(err);
  return violation ? { problem: Problem.validation([violation]) } : undefined;
}

function isValidatorError(err: unknown): err is ValidatorError {
  return (
    err instanceof Error &&
    typeof (err as ValidatorError).status === 'number' &&
    Array.isArray((err as ValidatorError).errors) &&
    Object.values(validatorErrors).some((C) => err instanceof C)
  );
}

function isHttpError(err: unknown): err is Error & { status: number } {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}

/** RFC 6750: a 401 names the scheme to use. The same on every 401, like the body. */
export const WWW_AUTHENTICATE = 'Bearer realm="channel-api"';

/** Writes a problem as `application/problem+json` (its `title` and `status` follow the status). */
export function sendProblem(res: Response, problem: Problem, headers: Record<string, string> = {}): void {
  res.status(problem.status);
  res.set(headers);
  if (problem.status === 401) res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  const body = JSON.stringify(problem.toBody());
  // Set here, not left to Node: Node leaves it out of a HEAD answer, which should have the GET's headers.
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * The edge's one error middleware. Expected failures become their problem; anything else is
 * logged with a fresh `reference` and answered 500 with a generic detail and that reference.
 */
export function errorHandler(logger: Logger, notFoundDetailOf: (path: string) => string | undefined = () => undefined): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const answer = answerFor(err, () => notFoundDetailOf(req.path));
    if (answer) {
      sendProblem(res, answer.problem, answer.headers);
      return;
    }
    const reference = randomUUID();
    const context = { reference, requestId: requestIdOf(res), method: req.method, path: req.path };
    if (isOutage(err)) {
      // Every request fails so while it lasts: one short line each (support looks answers up by
      // their reference), at warn and without a stack, so the outage does not bury real errors.
      const cause = err instanceof UpstreamError ? { upstream: err.upstream, operation: err.details.operation, cause: err.message } : { cause: (err as Error).message };
      logger.warn({ ...context, ...cause }, 'upstream unavailable: answered 500');
    } else {
      logger.error({ err, ...context, ...(err instanceof UpstreamError ? { upstream: err.upstream } : {}) }, 'unexpected error');
    }
    sendProblem(res, new Problem('internal', { detail: INTERNAL_DETAIL, extensions: { reference } }));
  };
}

/** An upstream out of reach, or one answering that it cannot serve now: the platform is down, not broken. */
function isOutage(err: unknown): boolean {
  return err instanceof UpstreamUnreachableError || (err instanceof Problem && err.problemType === 'unavailable');
}

/** The last route: nothing matched the path. */
export function unknownPath(_req: Request, _res: Response, next: NextFunction): void {
  next(Problem.notFound('No endpoint has this path.'));
}
