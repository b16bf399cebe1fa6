import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Problem } from '@pf/platform/problems';

/** The 422 message of a body that is not JSON by its Content-Type (or has none). */
export const NOT_JSON = 'The request body must be JSON (Content-Type: application/json).';

/** The media types read as JSON. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/**
 * A body sent without `Content-Type` to an operation that reads one (`takesBody`: only those
 * bodies are read; a body sent to any other operation, a `GET` or a cancel, has no meaning there
 * and is ignored, never parsed nor refused, RFC 9110 section 9.3.1) is a 422 naming the body, as
 * one of another type is (the validator's 415): it was neither read nor ignored in silence.
 *
 * A body of length 0 is no body, whatever type it is labelled with (`curl -d ''` labels it a
 * form): its `Content-Type` is dropped, so an operation whose body is optional (confirm,
 * test-connection) reads none, as without the label, and one that needs a body says it is missing.
 */
export function refuseUntypedBodies(takesBody: (req: Request) => boolean): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) === 0) delete req.headers['content-type'];
    // Only a length says a body is there before it is read: a chunked one may well be empty (some
    // clients send an empty body so), and is left as before, unread.
    const hasBody = Number(length ?? 0) > 0;
    if (hasBody && req.headers['content-type'] === undefined && takesBody(req)) {
      next(Problem.validation([{ property: 'body', message: NOT_JSON }]));
    } else next();
  };
}
