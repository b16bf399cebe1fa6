import { GraphQLError } from 'graphql';
import { createLogger } from '@pf/platform/logging';
import { ConfigError } from '@pf/platform/config';
import { formatGatewayError } from '../src/errors';
import { loadGatewayConfig } from '../src/config';
import { SubgraphDataSource } from '../src/subgraph-data-source';
import { DEFAULT_SUPERGRAPH_PATH, readSubgraphList } from '../src/subgraphs';

const logger = createLogger('gateway-unit', 'silent');

describe('gateway config', () => {
  it('defaults every subgraph URL from gateway/subgraphs.json and the committed supergraph', () => {
    const cfg = loadGatewayConfig({ JWT_VERIFY_KEY: 'x' });
    expect(cfg.SUPERGRAPH_PATH).toBe(DEFAULT_SUPERGRAPH_PATH);
    expect(cfg.subgraphUrls).toEqual({
      accounts: 'http://127.0.0.1:4101/graphql',
      catalog: 'http://127.0.0.1:4102/graphql',
      stock: 'http://127.0.0.1:4103/graphql',
      orders: 'http://127.0.0.1:4104/graphql',
      webhooks: 'http://127.0.0.1:4105/graphql',
    });
    expect(readSubgraphList().map((s) => s.urlEnv)).toEqual([
      'SUBGRAPH_ACCOUNTS_URL',
      'SUBGRAPH_CATALOG_URL',
      'SUBGRAPH_STOCK_URL',
      'SUBGRAPH_ORDERS_URL',
      'SUBGRAPH_WEBHOOKS_URL',
    ]);
  });

  it('takes a subgraph URL from its variable, and names the variable when it is not a URL', () => {
    expect(loadGatewayConfig({ SUBGRAPH_ORDERS_URL: 'http://orders:8080/graphql' }).subgraphUrls.orders).toBe('http://orders:8080/graphql');
    let error: unknown;
    try {
      loadGatewayConfig({ SUBGRAPH_STOCK_URL: 'not a url', GATEWAY_SUBGRAPH_CONNECTIONS: '0' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables.sort()).toEqual(['GATEWAY_SUBGRAPH_CONNECTIONS', 'SUBGRAPH_STOCK_URL']);
    expect((error as ConfigError).message).toMatch(/SUBGRAPH_STOCK_URL/);
  });
});

describe('formatGatewayError', () => {
  const problem = { problemType: 'not-found', detail: 'Channel x was not found.', extensions: {} };

  it('passes an error carrying a Problem unchanged', () => {
    const formatted = { message: 'Channel x was not found.', path: ['channel'], extensions: { code: 'not-found', problem, serviceName: 'accounts' } };
    expect(formatGatewayError(formatted, undefined, logger)).toBe(formatted);
  });

  it("passes the caller's GraphQL mistakes as Apollo formats them", () => {
    const formatted = { message: 'Cannot query field "nope" on type "Query".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } };
    expect(formatGatewayError(formatted, undefined, logger)).toBe(formatted);
    // Apollo gives them a 400 too: their own code stays.
    const validation = new GraphQLError(formatted.message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, headers: new Map() } } });
    expect(formatGatewayError(formatted, validation, logger)).toBe(formatted);
  });

  it("keeps a subgraph's reference for its unexpected error and says nothing more", () => {
    const formatted = { message: 'An unexpected error occurred.', path: ['team'], extensions: { code: 'INTERNAL_SERVER_ERROR', reference: 'ref-1', serviceName: 'accounts' } };
    expect(formatGatewayError(formatted, undefined, logger)).toEqual({
      message: 'An unexpected error occurred.',
      path: ['team'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', reference: 'ref-1' },
    });
  });

  it("answers Apollo's refusal of a request (a 4xx without a code) as the caller's mistake, without logging it", () => {
    const logs: unknown[] = [];
    const recording = { ...logger, error: (...args: unknown[]) => void logs.push(args) } as unknown as typeof logger;
    const refusal = new GraphQLError('provided sha does not match query', { extensions: { http: { status: 400, headers: new Map() } } });
    const formatted = { message: refusal.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    expect(formatGatewayError(formatted, refusal, recording)).toEqual({ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST' } });
    expect(logs).toEqual([]);
  });

  it('hides an unexpected gateway error behind a new reference', () => {
    const out = formatGatewayError({ message: 'Cannot read properties of undefined', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, new Error('x'), logger);
    expect(out).toEqual({ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', reference: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });
});

describe('SubgraphDataSource.errorFromResponse', () => {
  const source = new SubgraphDataSource({ name: 'accounts', url: 'http://accounts/graphql', fetcher: async () => { throw new Error('unused'); }, logger });
  const response = (status: number, body: unknown, contentType = 'application/json') =>
    ({
      status,
      ok: false,
      url: 'http://accounts/graphql',
      statusText: '',
      headers: new Headers({ 'content-type': contentType }),
      json: async () => body,
      text: async () => String(body),
    }) as never;

  it("keeps the subgraph's Problem of a non-2xx answer (a subgraph that refuses the identity)", async () => {
    const problem = { problemType: 'unauthenticated', detail: 'Invalid identity token: jwt expired', extensions: {} };
    const err = await source.errorFromResponse(response(401, { errors: [{ message: problem.detail, extensions: { code: 'UNAUTHENTICATED', problem } }] }));
    expect(err.message).toBe(problem.detail);
    expect(err.extensions).toEqual({ code: 'UNAUTHENTICATED', problem });
  });

  it('turns any other non-2xx answer into the bad-gateway problem', async () => {
    const err = await source.errorFromResponse(response(502, '<html>Bad Gateway</html>', 'text/html'));
    expect(err.extensions).toMatchObject({ code: 'BAD_GATEWAY', problem: { problemType: 'bad-gateway' } });
  });
});
