import http from 'node:http';
import net from 'node:net';
import { StockClient, StockFailedError, StockUnavailableError } from './stock-client';

const jwt = { algorithm: 'HS256' as const, key: 'k'.repeat(32), issuer: 'pf', audience: 'pf', expiresInSeconds: 60 };

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(client: StockClient): Promise<StockUnavailableError> {
  try {
    await client.orderHolds('00000000-0000-4000-8000-000000000001');
  } catch (err) {
    return err as StockUnavailableError;
  } finally {
    await client.close();
  }
  throw new Error('the call did not fail');
}

describe('StockClient failures: whether the request left', () => {
  it('no connection could be made: not sent, stock did nothing', async () => {
    const err = await failure(new StockClient({ url: `http://127.0.0.1:${await closedPort()}/graphql`, jwt, timeoutMs: 2_000, connections: 1 }));
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect(err.nothingDone).toBe(true);
  });

  /** The failure of a call to a stand-in for stock that treats each connection as `onSocket` does. */
  async function failureAgainst(onSocket: (socket: net.Socket) => void, timeoutMs: number): Promise<StockUnavailableError> {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      onSocket(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      return await failure(new StockClient({ url: `http://127.0.0.1:${port}/graphql`, jwt, timeoutMs, connections: 1 }));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('sent, then the connection cut before an answer: whether stock did it is unknown', async () => {
    const err = await failureAgainst((socket) => socket.once('data', () => socket.resetAndDestroy()), 2_000);
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect(err.nothingDone).toBe(false);
  });

  it('sent and never answered (a time-out): whether stock did it is unknown', async () => {
    const err = await failureAgainst((socket) => socket.on('data', () => undefined), 200);
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect(err.nothingDone).toBe(false);
  });
});

describe('StockClient fence tokens', () => {
  /** A stand-in for stock's subgraph that records each request's variables and answers `answer`. */
  async function standIn(answer: (body: { query: string; variables: Record<string, any> }) => unknown) {
    const seen: { query: string; variables: Record<string, any> }[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answer(body)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const client = new StockClient({ url: `http://127.0.0.1:${port}/graphql`, jwt, timeoutMs: 2_000, connections: 1 });
    const close = async () => {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return { client, seen, close };
  }
  const order = '00000000-0000-4000-8000-000000000001';

  it('a fenced client sends its token with every hold mutation; the plain one sends none', async () => {
    const s = await standIn(() => ({ data: { releaseHolds: [], consumeHolds: [], returnHolds: [], reinstateHolds: [], restoreHolds: [], reconsumeHolds: [], unconsumeHolds: [], fenceOrderHolds: [] } }));
    try {
      const fenced = s.client.fenced('42');
      await fenced.releaseHolds(order);
      await fenced.consumeHolds(order, ['a']);
      await fenced.returnHolds(order, ['a']);
      await fenced.reinstateHolds(order, ['1']);
      await fenced.restoreHolds(order, ['1']);
      await fenced.reconsumeHolds(order, ['1']);
      await fenced.unconsumeHolds(order, ['1']);
      await fenced.fenceOrderHolds(order);
      await s.client.releaseHolds(order);
      expect(s.seen.map((b) => b.variables.fence)).toEqual(['42', '42', '42', '42', '42', '42', '42', '42', null]);
      await expect(s.client.fenceOrderHolds(order)).rejects.toThrow(/fenced client/);
    } finally {
      await s.close();
    }
  });

  it('the token goes inside holdStock\'s input', async () => {
    const s = await standIn(() => ({ data: { holdStock: { __typename: 'StockHeld', lines: [], previousHoldIds: [] } } }));
    try {
      await s.client.fenced('7').holdStock({ teamCode: 't', orderUuid: order, lines: [] });
      expect(s.seen[0]!.variables.input.fence).toBe('7');
    } finally {
      await s.close();
    }
  });

  it('a refusal of a fenced-out change is not a problem for the caller to pass on: stock did nothing, and stock was unavailable to it', async () => {
    const problem = { problemType: 'conflict', detail: 'A later change of order … has taken over its stock', extensions: { fenced: true } };
    const s = await standIn(() => ({ errors: [{ message: problem.detail, extensions: { problem } }], data: null }));
    try {
      const err = await s.client.fenced('3').releaseHolds(order).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StockUnavailableError);
      expect((err as StockUnavailableError).nothingDone).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('StockClient: an outage or a failure', () => {
  /** A stand-in for stock answering every request with `status`, `contentType` and `body`. */
  async function answering(status: number, contentType: string, body: string) {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = status;
        res.setHeader('content-type', contentType);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const client = new StockClient({ url: `http://127.0.0.1:${port}/graphql`, jwt, timeoutMs: 2_000, connections: 1 });
    try {
      return await client.releaseHolds('00000000-0000-4000-8000-000000000001').catch((e: unknown) => e);
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('an unexpected error of the stock service is a failure (not an outage to wait out), with its reference', async () => {
    const err = await answering(200, 'application/json', JSON.stringify({ errors: [{ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', reference: 'ref-42' } }], data: null }));
    expect(err).toBeInstanceOf(StockFailedError);
    expect((err as StockFailedError).reference).toBe('ref-42');
    expect((err as Error).message).toMatch(/ref-42/);
  });

  it("a call the stock service does not know (its version behind this service's) is waited out: nothing was done", async () => {
    const err = await answering(400, 'application/json', JSON.stringify({ errors: [{ message: 'Unknown argument "fence" on field "Mutation.releaseHolds".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }));
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect((err as StockUnavailableError).nothingDone).toBe(true);
    // ...and told apart from an outage: the releases are out of step.
    expect((err as StockUnavailableError).callUnknown).toBe(true);
  });

  it('an answer without the data asked for is a failure too', async () => {
    expect(await answering(200, 'application/json', JSON.stringify({ data: { releaseHolds: null } }))).toBeInstanceOf(StockFailedError);
  });

  it("the stock service's own outage (its database out of reach) comes back as the unavailable problem", async () => {
    const problem = { problemType: 'unavailable', detail: 'The service cannot reach its database right now; try again shortly.', extensions: {} };
    const err = await answering(200, 'application/json', JSON.stringify({ errors: [{ message: problem.detail, extensions: { code: 'unavailable', problem } }], data: null }));
    expect(err).toMatchObject({ problemType: 'unavailable' });
  });

  it("a body that is no JSON (a proxy's error page) is no answer: an outage, outcome unknown", async () => {
    const err = await answering(502, 'text/html', '<html><body>Bad Gateway</body></html>');
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect((err as StockUnavailableError).nothingDone).toBe(false);
  });
});
