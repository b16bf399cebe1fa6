import net from 'node:net';
import { StockClient, StockUnavailableError } from './stock-client';

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
    expect(err.notSent).toBe(true);
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
    expect(err.notSent).toBe(false);
  });

  it('sent and never answered (a time-out): whether stock did it is unknown', async () => {
    const err = await failureAgainst((socket) => socket.on('data', () => undefined), 200);
    expect(err).toBeInstanceOf(StockUnavailableError);
    expect(err.notSent).toBe(false);
  });
});
