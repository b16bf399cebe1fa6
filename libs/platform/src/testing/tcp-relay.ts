import net from 'node:net';

/** A TCP relay on 127.0.0.1 in front of a server, to take the server away (connections and all). */
export interface TcpRelay {
  /** The relay's port: give it to the client instead of the server's. */
  port: number;
  /** Closes the relay and every connection through it: the server is gone, as in an outage. */
  cut(): Promise<void>;
}

export async function tcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const links = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      links.add(socket);
      socket.on('error', drop).on('close', () => {
        links.delete(socket);
        drop();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await new Promise<number>((resolve) => relay.listen(0, '127.0.0.1', () => resolve((relay.address() as net.AddressInfo).port)));
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const socket of links) socket.destroy();
      }),
  };
}
