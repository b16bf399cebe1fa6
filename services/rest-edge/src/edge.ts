import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import { persistentSubscription } from '@pf/platform/bus/persistent-subscription';
import type { Logger } from '@pf/platform/logging';
import { nameRoute } from '@pf/platform/metrics';
import { AccessRules } from './auth/access-rules';
import { AuthCache } from './auth/auth-cache';
import { authenticate, blockedAddressRefusal, principalOf, refuseBlockedAddresses, undecodableChannelIds } from './auth/authenticate';
import { subscribeAuthCacheInvalidation } from './auth/invalidation';
import { ChannelTokenChecks } from './auth/token-check';
import type { RestEdgeConfig } from './config';
import { loadContract, operationsOf, type Contract } from './contract/openapi';
import { operationOfRequest } from './contract/request-operation';
import { templateSource } from './contract/path-template';
import { requestValidator } from './contract/request-validation';
import { errorHandler, unknownPath } from './http/errors';
import { checkJsonBody } from '@pf/platform/http/body-refusal';
import { JSON_MEDIA_TYPES, refuseUntypedBodies } from './http/body';
import { queryParser } from './http/query';
import { refuseMalformedHead } from './http/request-head';
import { requestContext, requestIdOf } from './http/request-context';
import { sendJsonStream } from './http/stream';
import { InMemoryRateLimiter } from './rate-limit/memory';
import type { RateLimiter, RateLimits } from './rate-limit/rate-limiter';
import { RedisRateLimiter } from './rate-limit/redis';
import { RESOURCE_ROUTES } from './resources';
import { INSTANT_PARAMETERS } from './resources/orders/list-query';
import { ORDER_NOT_FOUND_DETAIL } from './resources/orders/route';
import { PRODUCT_NOT_FOUND_DETAIL } from './resources/products/route';
import { isStreamed, type ResourceRoute, type ResourceSettings, type UpstreamCall } from './resources/resource';
import { defineOperation, GraphqlUpstream } from './upstream/graphql';
import { IdentityMinter } from './upstream/identity';

export interface RestEdgeOptions {
  config: RestEdgeConfig;
  logger: Logger;
  /** The bus the accounts events arrive on (cache invalidation). */
  bus: EventBus;
  /** By default from `RATE_LIMIT_STORE`: Redis, or in-memory for the embedded wiring. */
  rateLimiter?: RateLimiter;
  /** By default the document in openapi/, read once. */
  contract?: Contract;
  /**
   * Routes answered ahead of the API's own, with the version header (the process's `/healthz`
   * and `/readyz`): on the edge's app itself, so a request passes one express app, not two.
   */
  mountFirst?: (app: Express) => void;
}

/** A created edge; `start` before serving, `stop` after the HTTP server has stopped. */
export interface RestEdge {
  /** Everything the edge serves: `/v1/channels/{channelId}/...`, `/v1/openapi.{yaml,json}`, problems for the rest. */
  app: Express;
  contract: Contract;
  authCache: AuthCache;
  rateLimiter: RateLimiter;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Throws unless Redis, the gateway, the accounts subgraph and the subgraphs called directly answer. */
  ready(): Promise<void>;
}

/**
 * The largest request body read (a larger one is a 422 naming `body`). Every body the contract
 * allows fits, however it is written: 1000 SKUs of 255 characters (or 500 order lines), each
 * character an astral one sent as two `\u` escapes (12 bytes), is about 3 MiB.
 */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The most structure a request body may have (checkJsonBody; a refusal is a 422 naming the body or
 * the member). The largest body the contract allows, 500 order lines, holds about 3 000 values and
 * nests 4 deep; the limits leave room for members a client adds of its own, and keep a body of
 * tiny values (megabytes of `[0,0,...]`) from costing seconds to parse and check.
 */
export const REQUEST_BODY_SHAPE = { maxValues: 50_000, maxDepth: 32 } as const;

/** Probe for readiness: answered by the GraphQL server itself, no subgraph involved. */
const READY_PROBE = defineOperation<Record<string, never>, { __typename: string }>('query EdgeReadiness { __typename }');

/**
 * The REST edge: the public Channel API in front of the gateway. Builds everything once (the
 * contract, prebuilt GraphQL operations, keep-alive pools to the gateway and to accounts) so a
 * request pays only for its own work.
 */
export async function createRestEdge(opts: RestEdgeOptions): Promise<RestEdge> {
  const { config, logger } = opts;
  const contract = opts.contract ?? loadContract();
  assertRoutesMatchContract(contract, RESOURCE_ROUTES);

  const limits: RateLimits = {
    perToken: config.RATE_LIMIT_PER_TOKEN,
    failedAuthPerIp: config.RATE_LIMIT_FAILED_AUTH_PER_IP,
    windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
  };
  const rateLimiter =
    opts.rateLimiter ??
    (config.RATE_LIMIT_STORE === 'memory'
      ? new InMemoryRateLimiter(limits)
      : new RedisRateLimiter({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, limits, logger }));

  const identities = new IdentityMinter(
    { algorithm: config.JWT_ALGORITHM, key: config.JWT_SIGNING_KEY, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE },
    { channelTtlSeconds: config.CHANNEL_JWT_TTL_SECONDS },
  );
  const pool = { connections: config.UPSTREAM_CONNECTIONS, timeoutMs: config.UPSTREAM_TIMEOUT_MS };
  const gateway = new GraphqlUpstream({ name: 'gateway', url: config.GATEWAY_URL, ...pool });
  const accounts = new GraphqlUpstream({ name: 'accounts', url: config.ACCOUNTS_URL, ...pool });
  // The stock feed's pages straight from the stock subgraph when it is configured (see config.ts).
  const stock = config.STOCK_URL ? new GraphqlUpstream({ name: 'stock', url: config.STOCK_URL, ...pool }) : undefined;
  // The order endpoints straight to the orders subgraph when it is configured (see config.ts).
  const orders = config.ORDERS_URL ? new GraphqlUpstream({ name: 'orders', url: config.ORDERS_URL, ...pool }) : undefined;
  const authCache = new AuthCache({ ttlMs: config.AUTH_CACHE_TTL_MS, maxEntries: config.AUTH_CACHE_MAX_ENTRIES });
  const tokenChecks = new ChannelTokenChecks(accounts, identities, authCache);

  const app = express();
  // Paths are case-sensitive (RFC 3986 section 6.2.2.1): `/ORDERS` is not a path of the document
  // and answers 404, so a rule a proxy or firewall keeps for `/webhooks` cannot be gone round.
  // A trailing slash is still allowed (express's non-strict routing), as the validator matches.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.disable('etag');
  // Which peers' X-Forwarded-For is believed (spec section 5 point 8); none by default.
  app.set('trust proxy', config.TRUSTED_PROXIES.length ? config.TRUSTED_PROXIES : false);
  // Form-decoded as express does by default, but a timestamp's offset may be written with a raw `+`.
  app.set('query parser', queryParser(INSTANT_PARAMETERS));
  app.use(requestContext(contract.version));
  const operationOf = operationOfRequest(contract.routing);
  // The metrics' route label: the contract's template, for every answer of the operation (a 401
  // or a 422 as much as a 200); a path the document lacks stays `unmatched`.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const template = operationOf(req).template;
    if (template) nameRoute(req, template);
    next();
  });
  opts.mountFirst?.(app);
  const channelBase = expressPath(contract.basePath);
  const channelPath = channelPathPattern(contract.basePath);
  // First, as section 5.7 orders: an address over its failed-request limit gets 429 for anything.
  app.use(refuseBlockedAddresses(rateLimiter, channelPath));
  // Before anything reads the host or the credentials: RFC 9112's 400s (after the address's own
  // limit, section 5.7's first check), absolute-form targets.
  app.use(refuseMalformedHead((req) => blockedAddressRefusal(rateLimiter, req)));

  app.get('/v1/openapi.yaml', (_req: Request, res: Response) => {
    res.type('application/yaml').send(contract.yaml);
  });
  app.get('/v1/openapi.json', (_req: Request, res: Response) => {
    res.type('application/json').send(contract.json);
  });

  const authenticateRequest = authenticate({ limiter: rateLimiter, tokenChecks, rules: new AccessRules(RESOURCE_ROUTES), logger: logger.child({ component: 'auth' }) });
  app.use(undecodableChannelIds(authenticateRequest, channelPath));
  app.use(channelBase, authenticateRequest);
  // Bodies are read only once the credentials passed: an unauthenticated caller gets 401, not 422;
  // and only for operations that take one (others ignore a body).
  // JSON is UTF-8 (RFC 8259): bytes that are not are refused (422 naming the body), never read as
  // U+FFFD; so is a structure over REQUEST_BODY_SHAPE or with a member twice, before it is parsed.
  const takesBody = (req: Request) => operationOf(req).takesBody;
  app.use(refuseUntypedBodies(takesBody));
  app.use(
    express.json({
      limit: MAX_REQUEST_BODY_BYTES,
      type: (req) => takesBody(req as Request) && Boolean((req as Request).is(JSON_MEDIA_TYPES)),
      verify: checkJsonBody(REQUEST_BODY_SHAPE),
    }),
  );
  app.use(...requestValidator(contract.routing, operationOf));

  const router = express.Router({ mergeParams: true, caseSensitive: true });
  const handlerDeps: HandlerDeps = {
    gateway,
    stock: stock ?? gateway,
    orders: orders ?? gateway,
    identities,
    apiVersion: contract.version,
    publicBaseUrl: config.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    basePath: contract.basePath,
    settings: { stockLevelsPageSize: config.STOCK_LEVELS_PAGE_SIZE, ordersCursorSettleMs: config.ORDERS_CURSOR_SETTLE_SECONDS * 1000 },
    logger,
  };
  for (const route of RESOURCE_ROUTES) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    router[method](expressPath(route.path), handlerFor(route, handlerDeps));
  }
  app.use(channelBase, router);
  app.use(unknownPath);
  // An order or product path whose uuid does not even decode answers as any other order or product
  // the channel cannot see.
  const undecodable: [RegExp, string][] = [
    [new RegExp(`${templateSource(contract.basePath)}/orders/[^/]+(?:/|$)`), ORDER_NOT_FOUND_DETAIL],
    [new RegExp(`${templateSource(contract.basePath)}/products/[^/]+$`), PRODUCT_NOT_FOUND_DETAIL],
  ];
  app.use(errorHandler(logger, (path) => undecodable.find(([resource]) => resource.test(path))?.[1]));

  let subscription: Subscription | undefined;
  let upstreamsAnswered = false;
  return {
    app,
    contract,
    authCache,
    rateLimiter,
    async start() {
      if (rateLimiter instanceof RedisRateLimiter) await rateLimiter.connect();
      if (authCache.enabled) {
        // The broker down at start does not keep the edge from serving: the cache then forgets an
        // entry within AUTH_CACHE_TTL_MS, as it does while the bus is down later.
        const invalidation = persistentSubscription(() => subscribeAuthCacheInvalidation(opts.bus, authCache, logger), { name: 'auth cache invalidation', logger });
        subscription = invalidation;
        await invalidation.firstAttempt;
      }
    },
    async stop() {
      await subscription?.stop();
      subscription = undefined;
      authCache.clear();
      await Promise.allSettled([gateway.close(), accounts.close(), stock?.close(), orders?.close()]);
      await rateLimiter.close();
    },
    // Ready once what every request needs has answered: the rate limiter, the credentials lookup
    // (accounts) and the gateway, so a pod with a wrong address or key never enters the Service.
    // From then on an outage of one of them (shared by every pod) is answered by each request
    // (500 with a reference, section 7; stock and orders are never part of it): a readiness tied
    // to them would take every edge pod out at once, and the whole API, orders included, would
    // answer the ingress's own 503.
    async ready() {
      if (upstreamsAnswered) return;
      const call = { bearer: identities.serviceJwt(), requestId: 'readiness' };
      await Promise.all([rateLimiter.ping(), gateway.execute(READY_PROBE, {}, call), accounts.execute(READY_PROBE, {}, call)]);
      upstreamsAnswered = true;
    },
  };
}

interface HandlerDeps {
  gateway: GraphqlUpstream;
  /** Where the stock feed's pages come from: the stock subgraph, or the gateway. */
  stock: GraphqlUpstream;
  /** Where the order endpoints' operations go: the orders subgraph, or the gateway. */
  orders: GraphqlUpstream;
  identities: IdentityMinter;
  apiVersion: string;
  /** PUBLIC_BASE_URL without a trailing slash, when configured. */
  publicBaseUrl: string | undefined;
  /** The contract's server path, `/v1/channels/{channelId}`. */
  basePath: string;
  settings: ResourceSettings;
  logger: Logger;
}

function handlerFor(route: ResourceRoute, deps: HandlerDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const principal = principalOf(res);
    const requestId = requestIdOf(res);
    // Upstreams see the token's own channel and team, in a JWT living seconds, asked for on every
    // call (IdentityMinter reuses it while it has half its life left): a long GET /stock-levels
    // stream outlives one.
    const callerOf =
      (upstream: GraphqlUpstream): UpstreamCall =>
      (operation, variables) =>
        upstream.execute(operation, variables, { bearer: deps.identities.channelJwt(principal.teamCode, principal.channelId, principal.teamActive), requestId });
    const result = await route.handle({
      principal,
      params: req.params as Record<string, string>,
      query: req.query as Record<string, unknown>,
      body: req.body,
      gateway: callerOf(deps.gateway),
      stock: callerOf(deps.stock),
      orders: callerOf(deps.orders),
      // Read by the few endpoints that build links; not worked out for the others.
      get channelUrl() {
        return channelUrlOf(req, deps, principal.pathChannelId);
      },
      apiVersion: deps.apiVersion,
      settings: deps.settings,
    });
    if (isStreamed(result)) await sendJsonStream(req, res, result.status, result.chunks, deps.logger);
    else res.status(result.status).json(result.body);
  };
}

/**
 * The path channel's absolute URL as the client reaches it: PUBLIC_BASE_URL when configured, else
 * the request's scheme and host (express believes `X-Forwarded-Proto`/`-Host` only from trusted proxies).
 */
function channelUrlOf(req: Request, deps: HandlerDeps, channelId: string): string {
  const origin = deps.publicBaseUrl ?? `${req.protocol}://${req.host ?? 'localhost'}`;
  return origin + deps.basePath.replace('{channelId}', encodeURIComponent(channelId));
}

/**
 * What `app.use(expressPath(template), ...)` takes: the path and everything below it (case-sensitive,
 * as the edge's routing), capturing the (still encoded) channel id.
 */
function channelPathPattern(template: string): RegExp {
  return new RegExp(`${templateSource(template)}(?:/|$)`);
}

/** `/v1/channels/{channelId}` -> `/v1/channels/:channelId`. */
function expressPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** The routes and the document describe the same endpoints, or the edge does not start. */
export function assertRoutesMatchContract(contract: Contract, routes: readonly ResourceRoute[]): void {
  const documented = new Map(operationsOf(contract.document).map((o) => [`${o.method} ${o.path}`, o.operationId]));
  const served = new Map(routes.map((r) => [`${r.method} ${r.path}`, r.operationId]));
  const problems: string[] = [];
  for (const [key, operationId] of served) {
    if (!documented.has(key)) problems.push(`${key} is served but not in the OpenAPI document`);
    else if (documented.get(key) !== operationId) problems.push(`${key}: operationId ${documented.get(key)} in the document, ${operationId} in the route`);
  }
  for (const key of documented.keys()) if (!served.has(key)) problems.push(`${key} is in the OpenAPI document but not served`);
  if (problems.length) throw new Error(`The edge's routes do not match its OpenAPI document:\n  ${problems.join('\n  ')}`);
}
