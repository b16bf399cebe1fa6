import http from 'node:http';
import net from 'node:net';
import { closeServer, listen } from './lifecycle';

describe('closeServer', () => {
  it('finishes while keep-alive callers keep their sockets busy, every request it took answered', async () => {
    let closing = false;
    const server = http.createServer((_req, res) => {
      // Which requests the server took after its close began (they must end their socket).
      res.setHeader('x-after-close', String(closing));
      setTimeout(() => res.end('ok'), 5);
    });
    const port = await listen(server, 0, '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const answers: { status: number; connection: string | undefined; afterClose: boolean }[] = [];
    const failures: string[] = [];
    let resets = 0;
    const once = () =>
      new Promise<boolean>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, agent, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            answers.push({ status: res.statusCode!, connection: res.headers.connection, afterClose: res.headers['x-after-close'] === 'true' });
            resolve(true);
          });
        });
        req.on('error', (err: NodeJS.ErrnoException) => {
          // Refused: the server no longer listens, which is how a caller learns to go elsewhere.
          // Reset: a request written onto a kept-alive socket as the server closed it for being
          // idle never reached the server (the race of every keep-alive close; clients retry it).
          if (err.code === 'ECONNRESET') resets += 1;
          else if (err.code !== 'ECONNREFUSED') failures.push(err.code ?? err.message);
          resolve(false);
        });
      });
    // Eight callers, each sending again as soon as it is answered (a busy pool in front of a pod).
    const callers = Array.from({ length: 8 }, async () => {
      while (await once());
    });
    await new Promise((r) => setTimeout(r, 100));
    closing = true;
    // A drain time far beyond the test's own time-out: close must finish by itself.
    await closeServer(server, 600_000);
    await Promise.all(callers);
    agent.destroy();
    expect(failures).toEqual([]);
    // At most once per socket: the one request that met the idle close.
    expect(resets).toBeLessThanOrEqual(8);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.afterClose).every((a) => a.connection === 'close')).toBe(true);
  }, 10_000);

  it('answers a request that reaches a kept-alive socket after the close began with Connection: close, then ends the socket', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const server = http.createServer((req, res) => {
      if (req.url === '/first') void gate.then(() => res.end('first'));
      else res.end('second');
    });
    const port = await listen(server, 0, '127.0.0.1');
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));
    const closed = closeServer(server, 600_000);
    // Pipelined behind the first: the server takes it once the first is answered, after the close began.
    socket.write('GET /second HTTP/1.1\r\nHost: x\r\n\r\n');
    release();
    await closed;
    await ended;
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toMatch(/first$/);
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(second).toMatch(/second$/);
  }, 10_000);

  it('closes what is still open once the drain time is up', async () => {
    const server = http.createServer(() => {
      // Never answers: a request stuck upstream.
    });
    const port = await listen(server, 0, '127.0.0.1');
    const stuck = new Promise<string>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/' }).on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    await new Promise((r) => setTimeout(r, 50));
    await closeServer(server, 200);
    expect(await stuck).toBe('ECONNRESET');
  }, 10_000);
});
