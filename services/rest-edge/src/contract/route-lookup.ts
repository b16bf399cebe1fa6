import path from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import type { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context';
import { HTTP_METHODS } from './openapi';

/*
 * express-openapi-validator 5.6.2 finds a request's operation (`lookupRoute` in
 * dist/middlewares/openapi.metadata.js) by compiling every documented path with path-to-regexp,
 * on every request, until one matches: most of the edge's validation time, growing with each
 * path the document gains. `openApiMetadata` is the same step with each path compiled once:
 * same order (the library's, most specific first), same path-to-regexp (the validator's own
 * copy) and options, same `req.openapi`, same 404/405 errors, except where the library departs
 * from OpenAPI (HEAD as GET; a concrete path matched without the method is a 405, not a templated
 * path's operation). The equivalence with the library's step is unit-tested (route-lookup.spec.ts).
 */

/** The path-to-regexp the validator itself loads, so paths match exactly as it would match them. */
export const pathToRegexpModule = require(
  require.resolve('path-to-regexp', { paths: [path.dirname(require.resolve('express-openapi-validator'))] }),
) as {
  pathToRegexp(path: string, options: { sensitive: boolean; strict: boolean }): { regexp: RegExp; keys: { name: string }[] };
};

type OperationSchema = object;

/** One documented path, compiled. */
interface DocumentedPath {
  expressRoute: string;
  openApiRoute: string;
  /** The key of the path in the validator's documents (read per request, as the library does). */
  pathKey: string;
  /** The `Allow` header of a 405 on this path. */
  allow: string;
}

interface CompiledPath extends DocumentedPath {
  regexp: RegExp;
  paramKeys: string[];
}

interface MetadataContext {
  apiDoc: { paths: Record<string, Record<string, OperationSchema | undefined>> };
  expressRouteMap: Record<string, Record<string, unknown> & { basePath: string }>;
  routePair(route: string): { expressRoute: string; openApiRoute: string };
  isManagedRoute(path: string): boolean;
  shouldIgnoreRoute(path: string): unknown;
  ignoreUndocumented: boolean;
  useRequestUrl: boolean;
  serial: number;
}

const HTTP_METHOD_NAMES = new Set<string>(HTTP_METHODS);

/**
 * The validator's metadata middleware (it sets `req.openapi`, which the request validator reads)
 * with every documented path compiled once instead of once per request.
 */
export function openApiMetadata(openApiContext: OpenApiContext, responseApiDoc?: { paths: Record<string, Record<string, OperationSchema>> }): RequestHandler {
  const context = openApiContext as unknown as MetadataContext;
  const documented = documentedPaths(context);
  // Compiled per routing mode of the app ('case sensitive routing', 'strict routing'), which the library reads per request.
  const compiledByMode = new Map<string, CompiledPath[]>();
  const compiledFor = (sensitive: boolean, strict: boolean): CompiledPath[] => {
    const mode = `${sensitive}:${strict}`;
    let compiled = compiledByMode.get(mode);
    if (!compiled) {
      compiled = documented.map((d) => {
        const { regexp, keys } = pathToRegexpModule.pathToRegexp(d.expressRoute, { sensitive, strict });
        return { ...d, regexp, paramKeys: keys.map((k) => k.name) };
      });
      compiledByMode.set(mode, compiled);
    }
    return compiled;
  };

  return (req: Request, _res: Response, next: NextFunction) => {
    const routePath = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    if (context.shouldIgnoreRoute(routePath)) {
      next();
      return;
    }
    const requestPath = (context.useRequestUrl ? req.url : req.originalUrl).split('?')[0]!;
    const paths = compiledFor(!!req.app.enabled('case sensitive routing'), !!req.app.enabled('strict routing'));
    const method = req.method.toLowerCase();
    // The first matching path lacking the method: answers 405 unless a later path as concrete has it.
    let lacking: CompiledPath | undefined;
    for (const p of paths) {
      const match = p.regexp.exec(requestPath);
      if (!match) continue;
      // OpenAPI matches concrete paths before templated ones: GET /products/validate-skus is a 405
      // of that path, not a product of that name (the library tries the templated path too).
      if (lacking && p.paramKeys.length > lacking.paramKeys.length) break;
      const schema = operationOf(context.apiDoc.paths[p.pathKey], method);
      if (!schema) {
        lacking ??= p;
        continue;
      }
      let pathParams: Record<string, string>;
      try {
        const values = match.slice(1).map(decodeURIComponent);
        pathParams = Object.fromEntries(p.paramKeys.map((k, i) => [k, values[i]!]));
      } catch {
        // A bad percent-escape names no resource (the error middleware answers 404).
        throw new URIError(`malformed path parameter in ${req.path}`);
      }
      const openapi: Record<string, unknown> = {
        expressRoute: p.expressRoute,
        openApiRoute: p.openApiRoute,
        pathParams,
        schema,
        serial: context.serial,
      };
      if (responseApiDoc) openapi._responseSchema = operationOf(responseApiDoc.paths[p.pathKey], method);
      (req as unknown as { openapi: unknown }).openapi = openapi;
      req.params = pathParams;
      next();
      return;
    }
    if (lacking) {
      if (context.ignoreUndocumented) {
        next();
        return;
      }
      throw new validatorErrors.MethodNotAllowed({ path: req.path, message: `${req.method} method not allowed`, headers: { Allow: lacking.allow } });
    }
    if (context.isManagedRoute(routePath) && !context.ignoreUndocumented) {
      throw new validatorErrors.NotFound({ path: req.path, message: 'not found' });
    }
    next();
  };
}

/**
 * The operation answering `method` on a path; HEAD is answered as GET wherever GET is (RFC 9110
 * 9.3.2: express's router does the same, and Node sends no body).
 */
function operationOf(path: Record<string, OperationSchema | undefined> | undefined, method: string): OperationSchema | undefined {
  return path?.[method] ?? (method === 'head' ? path?.get : undefined);
}

/** The documented paths in the library's lookup order. */
function documentedPaths(context: MetadataContext): DocumentedPath[] {
  return Object.entries(context.expressRouteMap).map(([expressRoute, methods]) => {
    const { openApiRoute } = context.routePair(expressRoute);
    const pathKey = openApiRoute.substring(methods.basePath.length);
    const allow = Object.keys(methods)
      .filter((key) => HTTP_METHOD_NAMES.has(key.toLowerCase()))
      .join(', ');
    return { expressRoute, openApiRoute, pathKey, allow };
  });
}
