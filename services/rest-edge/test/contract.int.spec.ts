import { readFileSync } from 'node:fs';
import net from 'node:net';
import { parse } from 'yaml';
import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { HTTP_METHODS, loadContract, OPENAPI_PATH } from '../src/contract/openapi';
import { INTERNAL_DETAIL } from '../src/http/errors';
import { ContractChecker } from './support/contract';
import { closeAgents, seedTeam, startSystem, type IssuedToken, type RunningEdge, type System } from './support/system';

/** The OpenAPI document as the edge's contract: served, enforced on requests, and true of responses. */
describe('the OpenAPI contract', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  const base = '/v1/channels/acme-shop';

  beforeAll(async () => {
    sys = await startSystem();
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop']);
  }, 60_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  describe('the document', () => {
    it('is OpenAPI 3.0.3 with info.version 1.2.0, served as YAML and JSON without credentials', async () => {
      const source = readFileSync(OPENAPI_PATH, 'utf8');
      const yaml = await edge.call('GET', '/v1/openapi.yaml');
      expect(yaml.status).toBe(200);
      expect(yaml.contentType).toMatch(/^application\/yaml/);
      expect(yaml.headers['service-api-version']).toBe('1.2.0');
      expect(yaml.body).toBe(source);
      const json = await edge.call('GET', '/v1/openapi.json');
      expect(json.status).toBe(200);
      expect(json.headers['service-api-version']).toBe('1.2.0');
      expect(json.body).toEqual(parse(source));
      expect(json.body).toMatchObject({ openapi: '3.0.3', info: { version: '1.2.0' }, servers: [{ url: '/v1/channels/{channelId}' }] });
    });

    it('documents, for every operation, the 401, 403 (where it applies), 429 and 500 answers and the version header', () => {
      const { document } = loadContract();
      for (const [path, item] of Object.entries(document.paths)) {
        // Path-level members other than operations (`parameters`) are skipped.
        const operations = Object.entries(item).filter(([key]) => (HTTP_METHODS as readonly string[]).includes(key));
        for (const [method, op] of operations as [string, { responses: Record<string, any> }][]) {
          const statuses = Object.keys(op.responses);
          expect({ op: `${method} ${path}`, has: ['401', '403', '429', '500'].every((s) => statuses.includes(s)) }).toEqual({ op: `${method} ${path}`, has: true });
          for (const status of statuses) {
            const response = op.responses[status].$ref
              ? (document.components!.responses as Record<string, any>)[op.responses[status].$ref.split('/').pop()]
              : op.responses[status];
            expect(Object.keys(response.headers ?? {})).toContain('Service-Api-Version');
          }
        }
      }
    });

    it('the response checker used by these tests catches a response that breaks the document', () => {
      const checker = new ContractChecker(loadContract().document);
      expect(() => checker.check('GET', '/', { status: 200, headers: {}, body: {}, contentType: 'application/json' })).toThrow(
        /missing header Service-Api-Version[\s\S]*required property 'data'/,
      );
      expect(() => checker.check('GET', '/token', { status: 404, headers: {}, body: {}, contentType: 'application/problem+json' })).toThrow(
        /does not document status 404/,
      );
      const headers = { 'service-api-version': '1.2.0' };
      expect(() =>
        checker.check('GET', '/', { status: 500, headers, body: { title: 'x', status: 500, detail: 'x', reference: 'nope' }, contentType: 'application/problem+json' }),
      ).toThrow(/reference must match format "uuid"/);
      const limited = { ...headers, 'retry-after': '3', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1790000000' };
      expect(() =>
        checker.check('GET', '/', { status: 429, headers: limited, body: { title: 'Rate limited', status: 429 }, contentType: 'application/problem+json' }),
      ).toThrow(/title must be equal to one of the allowed values/);
    });
  });

  describe('request validation (after authentication)', () => {
    it('a wrong-typed field answers 422 validation-failed naming the field', async () => {
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, body: { echo: 42 } });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.contentType).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual({
        type: `${PROBLEM_TYPE_BASE}validation-failed`,
        title: 'Unprocessable Entity',
        status: 422,
        detail: expect.any(String),
        violations: [{ property: 'echo', message: 'must be string' }],
      });
      // the token was counted: validation comes after check 7
      expect(res.headers['x-ratelimit-limit']).toBe('600');
    });

    it('an over-long field answers 422 naming it', async () => {
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, body: { echo: 'x'.repeat(201) } });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ property: 'echo', message: expect.stringContaining('200') }]);
    });

    it.each([
      ['a JSON array', '[1]', 'application/json'],
      ['JSON that does not parse', '{"echo": ', 'application/json'],
      ['a body that is not JSON', 'echo=1', 'text/plain'],
    ])('%s answers 422 naming the body', async (_name, rawBody, contentType) => {
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody, contentType });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ property: 'body', message: expect.any(String) }]);
    });

    it.each(['gzip', 'deflate', 'br'])('a body that is not %s although Content-Encoding says so answers 422 naming the body, not 500', async (encoding) => {
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody: '{"echo":"a"}', headers: { 'content-encoding': encoding } });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ property: 'body', message: expect.any(String) }]);
    });

    it('a body that is not UTF-8 answers 422 naming the body (it is not read with U+FFFD in place of the bytes)', async () => {
      const rawBody = Buffer.concat([Buffer.from('{"echo":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ property: 'body', message: 'The request body is not valid UTF-8.' }]);
    });

    it.each(['utf-16le', 'utf-16be', 'utf-16'])('a body declared %s answers 422 naming the body: the checks made on its bytes read UTF-8, so it is not parsed as another text', async (charset) => {
      // A member given twice, which the edge refuses in UTF-8 (checkJsonBody), hidden between two
      // characters whose UTF-16 bytes hold a '"' (U+0122: 0x22 0x01) for a byte scanner.
      const text = '{"z":"\u0122","echo":"a","echo":"b","y":"\u0122"}';
      const le = Buffer.from(text, 'utf16le');
      const rawBody = charset === 'utf-16be' ? Buffer.from(le).swap16() : le;
      const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody, contentType: `application/json; charset=${charset}` });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ property: 'body', message: 'The request body must be UTF-8 JSON without content encoding.' }]);
    });

    it('unknown members and unknown query parameters are ignored', async () => {
      const res = await edge.call('POST', `${base}/test-connection?verbose=1`, { token: acme.shop!.token, body: { echo: 'a', future: true } });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(200);
      expect(res.body.data.echo).toBe('a');
    });

    it.each([
      ['/orders', 'status[x]=queued', 'status'],
      ['/orders', 'status[]=queued', 'status'],
      ['/products', 'active-state[__proto__]=bogus', 'active-state'],
      ['/products', 'page[constructor]=0&per-page[__proto__]=5', 'page,per-page'],
    ])('GET %s?%s (bracket notation of a documented parameter) is a 422 naming it, never a 500 or an unapplied filter', async (path, query, named) => {
      const res = await edge.call('GET', `${base}${path}?${query}`, { token: acme.shop!.token });
      sys.contract.check('GET', path, res);
      expect(res.status).toBe(422);
      expect(res.body.violations.map((v: { property: string }) => v.property).sort()).toEqual(named.split(','));
    });

    it("another operation's parameter is an unknown one, ignored however it is written; on an unknown path the answer stays 404", async () => {
      const token = await edge.call('GET', `${base}/token?status=%FF&page=0x2&per-page[x]=1`, { token: acme.shop!.token });
      expect(token.status).toBe(200);
      const nope = await edge.call('GET', `${base}/nope?status=%FF&page=x`, { token: acme.shop!.token });
      expect(nope.status).toBe(404);
    });

    it('a bracket key of an unknown parameter is ignored like any unknown parameter', async () => {
      const res = await edge.call('GET', `${base}/token?filter[__proto__]=x&x[y][z]=1&[page]=0`, { token: acme.shop!.token });
      sys.contract.check('GET', '/token', res);
      expect(res.status).toBe(200);
    });

    it('a body sent to an operation that takes none is ignored, however malformed', async () => {
      for (const [method, path] of [['GET', '/token'], ['GET', '/'], ['DELETE', '/orders/00000000-0000-4000-8000-000000000000']] as const) {
        const res = await edge.call(method, `${base}${path}`, { token: acme.shop!.token, rawBody: '{"broken": ', contentType: 'application/json' });
        expect(res.status).not.toBe(422);
        if (method === 'GET') {
          sys.contract.check(method, path, res);
          expect(res.status).toBe(200);
        }
      }
    });

    it('a body without Content-Type sent to an operation that takes one is a 422 naming the body, as one of another type is', async () => {
      for (const contentType of [null, 'text/plain']) {
        const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody: '{"echo":"a"}', contentType });
        sys.contract.check('POST', '/test-connection', res);
        expect(res.status).toBe(422);
        expect(res.body.violations).toEqual([{ property: 'body', message: expect.stringMatching(/must be JSON/) }]);
      }
    });

    it("an empty body is no body, whatever type it is labelled with: an optional one is left out, a required one is missing", async () => {
      for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', null]) {
        const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody: '', contentType });
        sys.contract.check('POST', '/test-connection', res);
        expect({ contentType, status: res.status }).toEqual({ contentType, status: 200 });
        expect(res.body).not.toHaveProperty('echo');
        const create = await edge.call('POST', `${base}/orders`, { token: acme.shop!.token, rawBody: '', contentType });
        sys.contract.check('POST', '/orders', create);
        expect({ contentType, status: create.status, violations: create.body.violations }).toEqual({ contentType, status: 422, violations: [expect.objectContaining({ property: 'body' })] });
      }
    });

    it('a bare JSON value as the body is a 422 saying so, not that it is not JSON', async () => {
      for (const rawBody of ['null', '12', '"x"']) {
        const res = await edge.call('POST', `${base}/test-connection`, { token: acme.shop!.token, rawBody });
        expect(res.status).toBe(422);
        expect(res.body.violations).toEqual([{ property: 'body', message: 'The request body must be a JSON object, not a bare value.' }]);
      }
    });

    it('an unauthenticated request with a bad body is 401, not 422', async () => {
      const res = await edge.call('POST', `${base}/test-connection`, { rawBody: '{"echo": ', contentType: 'application/json' });
      sys.contract.check('POST', '/test-connection', res);
      expect(res.status).toBe(401);
    });
  });

  describe('answers outside the operations', () => {
    it.each([
      ['an unknown path under a channel', `${base}/nope`],
      ['an unknown path under /v1', '/v1/nope'],
      ['an unknown path', '/nope'],
      // Paths are case-sensitive (RFC 3986): a proxy's rule for a path cannot be gone round by its case.
      ['a documented path in other letters', `${base}/ORDERS`],
      ['a documented path in other letters (GET /token)', `${base}/Token`],
      ['the base path in other letters', '/V1/CHANNELS/acme-shop/orders'],
      ['the document in other letters', '/v1/OPENAPI.YAML'],
    ])('%s is a 404 problem with the version header', async (_name, path) => {
      const res = await edge.call('GET', path, { token: acme.shop!.token });
      sys.contract.checkComponentResponse('NotFound', res);
      expect(res.status).toBe(404);
      expect(res.headers['service-api-version']).toBe('1.2.0');
      expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}not-found`, title: 'Not Found', status: 404, detail: expect.any(String) });
    });

    // That it also rotates nothing is checked where the webhooks service runs (webhooks.int.spec.ts).
    it('a body-taking operation in other letters is a 404 problem (POST .../WEBHOOKS/SECRET/ROTATE)', async () => {
      const res = await edge.call('POST', `${base}/WEBHOOKS/SECRET/ROTATE`, { token: acme.shop!.token });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe(`${PROBLEM_TYPE_BASE}not-found`);
    });

    it('an unknown path under a channel is authenticated first', async () => {
      const res = await edge.call('GET', `${base}/nope`);
      expect(res.status).toBe(401);
      expect(res.headers['service-api-version']).toBe('1.2.0');
    });

    it('a known path with another method is a 405 problem naming the allowed methods', async () => {
      const res = await edge.call('DELETE', `${base}/token`, { token: acme.shop!.token });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      // HEAD only where GET is answered
      expect((await edge.call('GET', `${base}/test-connection`, { token: acme.shop!.token })).headers.allow).toBe('POST');
      expect(res.headers['service-api-version']).toBe('1.2.0');
      expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}method-not-allowed`, title: 'Method Not Allowed', status: 405, detail: expect.any(String) });
    });

    it('an unexpected failure is a 500 with a generic detail and a reference that is in the log line of the error', async () => {
      // A real fault: the gateway this edge is configured with does not answer.
      const closedPort = await new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
          const { port } = s.address() as net.AddressInfo;
          s.close(() => resolve(port));
        });
      });
      const broken = await sys.startEdge({ GATEWAY_URL: `http://127.0.0.1:${closedPort}/graphql` });
      const res = await broken.call('GET', `${base}/team`, { token: acme.shop!.token });
      sys.contract.check('GET', '/team', res);
      expect(res.status).toBe(500);
      expect(res.headers['service-api-version']).toBe('1.2.0');
      expect(res.body).toEqual({
        type: `${PROBLEM_TYPE_BASE}internal`,
        title: 'Internal Server Error',
        status: 500,
        detail: INTERNAL_DETAIL,
        reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|gateway|127\.0\.0\.1/);
      const logged = broken.logs.lines.filter((l) => l.reference === res.body.reference);
      // An outage, not a fault: one short warn line per answer, with its reference and no stack.
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 40, msg: 'upstream unavailable: answered 500', method: 'GET', upstream: 'gateway', cause: expect.stringMatching(/ECONNREFUSED/) });
      expect(logged[0]).not.toHaveProperty('err');
      // The request id the client is answered is the one its lines are logged under.
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(logged[0]!.requestId).toBe(res.headers['x-request-id']);
      // the token never reaches the log
      expect(JSON.stringify(broken.logs.lines)).not.toContain(acme.shop!.token);
      await broken.close();
    });
  });
});
