import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { templateSource } from './path-template';

/** The contract document, a source file of the edge (ARCHITECTURE principle 6). */
export const OPENAPI_PATH = path.resolve(__dirname, '..', '..', 'openapi', 'channel-api.yaml');

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The minimum of OpenAPI 3.0 the edge reads itself; the validator reads the rest. */
export interface OpenApiDocument {
  openapi: string;
  info: { version: string; [k: string]: unknown };
  servers?: { url: string; variables?: Record<string, { default: string; enum?: string[]; description?: string }> }[];
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [k: string]: unknown;
}

/** The contract, parsed once at start and served as it is. */
export interface Contract {
  document: OpenApiDocument;
  /** `info.version`: the `Service-Api-Version` of every response. */
  version: string;
  /** The source file's text (served as `/v1/openapi.yaml`). */
  yaml: string;
  /** The same document as JSON (served as `/v1/openapi.json`). */
  json: string;
  /** The document as the request validator needs it (see `routingDocument`). */
  routing: OpenApiDocument;
  /** The server path template, `/v1/channels/{channelId}`. */
  basePath: string;
}

export function loadContract(file: string = OPENAPI_PATH): Contract {
  const yaml = readFileSync(file, 'utf8');
  const document = parse(yaml) as OpenApiDocument;
  if (!/^3\.0\.\d+$/.test(String(document.openapi))) throw new Error(`${file}: expected OpenAPI 3.0.x`);
  const version = document.info?.version;
  if (!/^\d+\.\d+\.\d+$/.test(String(version))) throw new Error(`${file}: info.version must be MAJOR.MINOR.PATCH`);
  const basePath = document.servers?.[0]?.url;
  if (!basePath?.startsWith('/')) throw new Error(`${file}: the first server must be a path such as /v1/channels/{channelId}`);
  return { document, version, yaml, json: JSON.stringify(document), routing: routingDocument(document), basePath };
}

/**
 * The contract's paths are relative to the server `/v1/channels/{channelId}` (as the spec names
 * them). express-openapi-validator only routes server variables that have an enum (issue #889 of
 * that project: a free variable matches its default value only), so it gets a copy in which the
 * templated part of the server path moves into every path and its variables become path
 * parameters: server `/v1`, path `/channels/{channelId}/token`.
 */
export function routingDocument(doc: OpenApiDocument): OpenApiDocument {
  const server = doc.servers?.[0];
  if (!server) return doc;
  const firstVariable = server.url.indexOf('{');
  if (firstVariable < 0) return doc;
  const staticPart = server.url.slice(0, server.url.lastIndexOf('/', firstVariable));
  const templatedPart = server.url.slice(staticPart.length).replace(/\/$/, '');
  const variables = Object.entries(server.variables ?? {});
  const parameters = variables.map(([name, v]) => ({
    name,
    in: 'path',
    required: true,
    schema: v.enum ? { type: 'string', enum: v.enum } : { type: 'string' },
  }));
  const paths: OpenApiDocument['paths'] = {};
  for (const [p, item] of Object.entries(doc.paths)) {
    const routed = p === '/' ? templatedPart : templatedPart + p;
    const existing = Array.isArray(item.parameters) ? (item.parameters as unknown[]) : [];
    paths[routed] = { ...item, parameters: [...parameters, ...existing] };
  }
  return { ...doc, servers: [{ url: staticPart || '/' }], paths };
}

/** One operation of the document: method, path (relative to the server), operationId, and whether it takes a request body. */
export interface OperationSummary {
  method: string;
  path: string;
  operationId: string | undefined;
  takesBody: boolean;
}

/** Every operation of the document. */
export function operationsOf(doc: OpenApiDocument): OperationSummary[] {
  const out: OperationSummary[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of HTTP_METHODS) {
      const op = item[m] as { operationId?: string; requestBody?: unknown } | undefined;
      if (op) out.push({ method: m.toUpperCase(), path: p, operationId: op.operationId, takesBody: op.requestBody !== undefined });
    }
  }
  return out;
}

interface ParameterObject {
  name?: string;
  in?: string;
  schema?: { type?: string };
  $ref?: string;
}

const SHARED_PARAMETER = '#/components/parameters/';

/** The query parameters in these parameter lists (a `$ref` to `components/parameters` followed). */
function queryParametersIn(doc: OpenApiDocument, lists: unknown[]): ParameterObject[] {
  const shared = (doc.components?.parameters ?? {}) as Record<string, ParameterObject>;
  const resolve = (p: ParameterObject): ParameterObject => (p.$ref?.startsWith(SHARED_PARAMETER) ? (shared[p.$ref.slice(SHARED_PARAMETER.length)] ?? p) : p);
  const found: ParameterObject[] = [];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const p of (list as ParameterObject[]).map(resolve)) if (p.in === 'query' && p.name) found.push(p);
  }
  return found;
}

/** The query parameters one operation takes: their names, which of them are integers, and which lists. */
export interface OperationQuery {
  names: readonly string[];
  integers: readonly string[];
  lists: readonly string[];
}

/** What the edge's checks before validation need of the operation a request goes to. */
export interface RouteOperation {
  /** The document's path template with the server's (`/v1/channels/{channelId}/orders/{orderUuid}`); none for a path the document lacks. */
  template?: string;
  /** It declares a request body: only then is one read (others are ignored, RFC 9110 9.3.1). */
  takesBody: boolean;
  /** Its query parameters: the query checks look only at these (another operation's are unknown here). */
  query: OperationQuery;
}

/**
 * The operation a request goes to, by its method and path (as the edge routes: case-sensitively,
 * a trailing slash allowed; HEAD as GET), from the routing document; for a path or method the
 * document lacks, one that takes no body and no query parameters.
 */
export function operationsByRoute(doc: OpenApiDocument): (method: string, path: string) => RouteOperation {
  const server = doc.servers?.[0]?.url ?? '';
  const base = server === '/' ? '' : server.replace(/\/$/, '');
  const operations = Object.entries(doc.paths)
    // Concrete paths before templated ones (OpenAPI's matching order): /products/validate-skus before /products/{productUuid}.
    .sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .flatMap(([p, item]) =>
      HTTP_METHODS.filter((m) => item[m]).map((m) => {
        const parameters = queryParametersIn(doc, [item.parameters, (item[m] as { parameters?: unknown }).parameters]);
        const operation: RouteOperation = {
          template: base + p,
          takesBody: (item[m] as { requestBody?: unknown }).requestBody !== undefined,
          query: {
            names: sortedNames(parameters),
            integers: sortedNames(parameters.filter((x) => x.schema?.type === 'integer')),
            lists: sortedNames(parameters.filter((x) => x.schema?.type === 'array')),
          },
        };
        return { method: m.toUpperCase(), path: new RegExp(`${templateSource(base + p)}/?$`), operation };
      }),
    );
  const none: RouteOperation = { takesBody: false, query: { names: [], integers: [], lists: [] } };
  return (method, path) => {
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return operations.find((o) => o.method === m && o.path.test(path))?.operation ?? none;
  };
}

function sortedNames(parameters: ParameterObject[]): string[] {
  return [...new Set(parameters.map((p) => p.name as string))].sort();
}

