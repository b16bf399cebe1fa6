import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const SERVICE_API_VERSION_HEADER = 'Service-Api-Version';

/**
 * First middleware of every response the edge gives: the contract version header (spec section
 * 4: every response, errors and unknown paths included) and a request id that follows the
 * request to the gateway and into the logs.
 */
export function requestContext(apiVersion: string): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader(SERVICE_API_VERSION_HEADER, apiVersion);
    res.locals.requestId = randomUUID();
    next();
  };
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}
