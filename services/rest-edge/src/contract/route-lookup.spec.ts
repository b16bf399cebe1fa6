import type { NextFunction, Request, Response } from 'express';
import { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader';
import { applyOpenApiMetadata } from 'express-openapi-validator/dist/middlewares/openapi.metadata';
import { loadContract } from './openapi';
import { openApiMetadata, pathToRegexpModule } from './route-lookup';

/** The validator's view of the edge's own document, as `requestValidator` builds it. */
async function contextOfContract(): Promise<OpenApiContext> {
  const spec = await new OpenApiSpecLoader({
    apiDoc: structuredClone(loadContract().routing) as never,
    validateApiSpec: true,
    $refParser: { mode: 'bundle' },
  }).load();
  return new OpenApiContext(spec, undefined as never, false, false);
}

interface Outcome {
  openapi?: unknown;
  params?: unknown;
  error?: { name: string; status: number; message: string; headers?: unknown; path?: string };
  next: boolean;
}

/** Runs one metadata middleware on a request shaped as express gives it to the edge's app-level middleware. */
function run(middleware: ReturnType<typeof openApiMetadata>, method: string, url: string, settings: Record<string, boolean> = {}): Outcome {
  const req = {
    method,
    url,
    originalUrl: url,
    baseUrl: '',
    path: url.split('?')[0],
    params: {},
    app: { enabled: (name: string) => settings[name] ?? false },
  } as unknown as Request & { openapi?: unknown };
  let nextCalled = false;
  try {
    middleware(req, {} as Response, (() => (nextCalled = true)) as NextFunction);
  } catch (err) {
    const e = err as { name: string; status: number; message: string; headers?: unknown; path?: string };
    return { error: { name: e.constructor.name, status: e.status, message: e.message, headers: e.headers, path: e.path }, next: nextCalled };
  }
  return { openapi: req.openapi, params: req.params, next: nextCalled };
}

const CHANNEL = '/v1/channels/acme-shop';
const ORDER = '6f1c1d1e-9d2a-4c1b-8a4e-2f6d7b8c9a0b';

/**
 * Every documented operation, the trailing-slash variants, wrong methods, unknown and odd paths:
 * answered as the library does, except for the three departures tested apart below.
 */
const REQUESTS: [string, string][] = [
  ['GET', `${CHANNEL}/`],
  ['GET', CHANNEL],
  ['GET', `${CHANNEL}/?x=1`],
  ['POST', `${CHANNEL}/`],
  ['GET', `${CHANNEL}/token`],
  ['DELETE', `${CHANNEL}/token`],
  ['GET', `${CHANNEL}/team`],
  ['POST', `${CHANNEL}/test-connection`],
  ['GET', `${CHANNEL}/test-connection`],
  ['GET', `${CHANNEL}/products?limit=5`],
  ['POST', `${CHANNEL}/products/validate-skus`],
  ['GET', `${CHANNEL}/products/${ORDER}`],
  ['GET', `${CHANNEL}/stock-levels`],
  ['GET', `${CHANNEL}/shipping-methods`],
  ['GET', `${CHANNEL}/orders`],
  ['POST', `${CHANNEL}/orders`],
  ['PATCH', `${CHANNEL}/orders`],
  ['GET', `${CHANNEL}/orders/${ORDER}`],
  ['DELETE', `${CHANNEL}/orders/${ORDER}`],
  ['PUT', `${CHANNEL}/orders/${ORDER}`],
  ['PUT', `${CHANNEL}/orders/${ORDER}/confirm`],
  ['PUT', `${CHANNEL}/orders/${ORDER}/lines`],
  ['PUT', `${CHANNEL}/orders/${ORDER}/cancel`],
  ['POST', `${CHANNEL}/webhooks`],
  ['POST', `${CHANNEL}/webhooks/secret/rotate`],
  ['POST', `${CHANNEL}/webhooks/resend`],
  ['GET', `${CHANNEL}/ORDERS`],
  ['GET', `${CHANNEL}/orders/a%20b`],
  ['GET', '/v1/channels/acme%2Fshop/token'],
  ['GET', `${CHANNEL}/nothing-here`],
  ['GET', `${CHANNEL}/orders/${ORDER}/nothing`],
  ['GET', '/v1/openapi.json'],
  ['GET', '/v2/channels/acme-shop/'],
  ['GET', '/'],
];

describe('openApiMetadata', () => {
  let context: OpenApiContext;
  beforeAll(async () => {
    context = await contextOfContract();
  });

  it.each(REQUESTS)('answers %s %s as express-openapi-validator does', (method, url) => {
    const settingsToTry: Record<string, boolean>[] = [{}, { 'strict routing': true, 'case sensitive routing': true }];
    for (const settings of settingsToTry) {
      const ours = run(openApiMetadata(context), method, url, settings);
      const library = run(applyOpenApiMetadata(context, undefined as never), method, url, settings);
      expect(ours).toEqual(library);
      // the very operation object the validator keeps (its request validator caches by it)
      if (library.openapi) expect((ours.openapi as { schema: unknown }).schema).toBe((library.openapi as { schema: unknown }).schema);
    }
  });

  it('finds the operation and the path parameters', () => {
    const outcome = run(openApiMetadata(context), 'PUT', `${CHANNEL}/orders/${ORDER}/confirm`);
    expect(outcome.next).toBe(true);
    expect(outcome.openapi).toMatchObject({ openApiRoute: '/v1/channels/{channelId}/orders/{orderUuid}/confirm', pathParams: { channelId: 'acme-shop', orderUuid: ORDER } });
    expect(outcome.params).toEqual({ channelId: 'acme-shop', orderUuid: ORDER });
  });

  it('answers 405 with the methods of the path in Allow', () => {
    const outcome = run(openApiMetadata(context), 'PATCH', `${CHANNEL}/orders/${ORDER}`);
    expect(outcome.error).toMatchObject({ status: 405, message: 'PATCH method not allowed' });
    expect((outcome.error!.headers as { Allow: string }).Allow.split(', ').sort()).toEqual(['DELETE', 'GET']);
  });

  it('answers HEAD with the GET operation of the path, where the library answers 405', () => {
    const outcome = run(openApiMetadata(context), 'HEAD', `${CHANNEL}/products?limit=5`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.next).toBe(true);
    const get = run(openApiMetadata(context), 'GET', `${CHANNEL}/products?limit=5`);
    expect((outcome.openapi as { schema: unknown }).schema).toBe((get.openapi as { schema: unknown }).schema);
    expect(run(openApiMetadata(context), 'HEAD', `${CHANNEL}/test-connection`).error).toMatchObject({ status: 405 });
  });

  it('answers 405 for a concrete path matched without the method, as OpenAPI matches: GET /products/validate-skus is not a product (the library took it for one)', () => {
    const outcome = run(openApiMetadata(context), 'GET', `${CHANNEL}/products/validate-skus`);
    expect(outcome.error).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
    expect(run(openApiMetadata(context), 'DELETE', `${CHANNEL}/products/validate-skus`).error).toMatchObject({ status: 405 });
    // A product whose uuid merely starts like it is still the product path.
    expect(run(openApiMetadata(context), 'GET', `${CHANNEL}/products/validate-skus2`).openapi).toMatchObject({ pathParams: { productUuid: 'validate-skus2' } });
  });

  it('throws a URIError (answered 404) for a bad percent-escape in a path parameter, where the library answers 400', () => {
    expect(run(openApiMetadata(context), 'GET', `${CHANNEL}/orders/%E0%A4%A`).error).toMatchObject({ name: 'URIError' });
  });

  it('compiles each documented path once, not on every request', () => {
    const compile = jest.spyOn(pathToRegexpModule, 'pathToRegexp');
    try {
      const middleware = openApiMetadata(context);
      for (let i = 0; i < 5; i++) run(middleware, 'GET', `${CHANNEL}/`);
      expect(compile).toHaveBeenCalledTimes(Object.keys(context.expressRouteMap).length);
    } finally {
      compile.mockRestore();
    }
  });
});
