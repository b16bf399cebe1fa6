import type { Request } from 'express';
import { operationsByRoute, type OpenApiDocument, type RouteOperation } from './openapi';

/** The operation a request goes to (see operationsByRoute). */
export type OperationOfRequest = (req: Request) => RouteOperation;

/**
 * operationsByRoute for requests, looked up once per request: the body checks, the body parser
 * and the query checks each ask, on every request.
 */
export function operationOfRequest(routing: OpenApiDocument): OperationOfRequest {
  const byRoute = operationsByRoute(routing);
  const found = new WeakMap<Request, RouteOperation>();
  return (req) => {
    let operation = found.get(req);
    if (!operation) {
      operation = byRoute(req.method, req.path);
      found.set(req, operation);
    }
    return operation;
  };
}
