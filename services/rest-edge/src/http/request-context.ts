import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const SERVICE_API_VERSION_HEADER = 'Service-Api-Version';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * First middleware of every response the edge gives: the contract version header (spec section
 * 4: every response, errors and unknown paths included) and a request id that follows the
 * request to the gateway and the subgraphs and into their logs, answered to the client too
 * (`X-Request-Id`) so support can find the request's lines.
 */
export function requestContext(apiVersion: string): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader(SERVICE_API_VERSION_HEADER, apiVersion);
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}
