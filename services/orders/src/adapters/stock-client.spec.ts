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

  it('sent and never answered (a time-out): whether stock did it is unknown', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket.on('data', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const err = await failure(new StockClient({ url: `http://127.0.0.1:${port}/graphql`, jwt, timeoutMs: 200, connections: 1 }));
      expect(err).toBeInstanceOf(StockUnavailableError);
      expect(err.notSent).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
