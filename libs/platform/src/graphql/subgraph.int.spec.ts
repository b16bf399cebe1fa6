import http from 'node:http';
import { parse } from 'graphql';
import { closeServer, listen } from '../http/lifecycle';
import { signIdentity, type JwtSignOptions } from '../identity';
import { recordingLogger } from '../testing/recorded-logs';
import { createSubgraph } from './subgraph';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'subgraph-test-key', issuer: 'pf-test', audience: 'pf-test', expiresInSeconds: 60 };

describe('a subgraph logs the request id with what a request met', () => {
  it("an unexpected error and an outage each carry the caller's x-request-id", async () => {
    const { logger, lines } = recordingLogger();
    const { app, server } = await createSubgraph({
      name: 'probe',
      typeDefs: parse('type Query { broken: String, outage: String }'),
      resolvers: {
        Query: {
          broken: () => {
            throw new TypeError('x is not a function');
          },
          outage: () => {
            throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
          },
        },
      },
      jwt,
      logger,
    });
    const httpServer = http.createServer(app);
    const port = await listen(httpServer, 0, '127.0.0.1');
    try {
      const token = signIdentity({ kind: 'service', service: 'test' }, jwt);
      for (const [field, requestId] of [['broken', 'req-broken'], ['outage', 'req-outage']] as const) {
        const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': requestId },
          body: JSON.stringify({ query: `{ ${field} }` }),
        });
        expect(res.status).toBe(200);
      }
      expect(lines.filter((l) => l.level !== 'debug').map((l) => ({ msg: l.msg, requestId: l.obj.requestId }))).toEqual([
        { msg: 'unexpected error in resolver', requestId: 'req-broken' },
        { msg: 'database unavailable: answered unavailable (one line per 10 s)', requestId: 'req-outage' },
      ]);
    } finally {
      await closeServer(httpServer);
      await server.stop();
    }
  });
});
