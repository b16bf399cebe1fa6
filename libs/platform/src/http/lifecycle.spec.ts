import http from 'node:http';
import { closeServer, listen } from './lifecycle';

describe('closeServer', () => {
  it('finishes while keep-alive callers keep their sockets busy: every request in flight is answered, the later ones with Connection: close', async () => {
    const server = http.createServer((_req, res) => {
      setTimeout(() => res.end('ok'), 5);
    });
    const port = await listen(server, 0, '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    let closing = false;
    const answers: { status: number; connection: string | undefined; afterClose: boolean }[] = [];
    const failures: string[] = [];
    const once = () =>
      new Promise<boolean>((resolve) => {
        const afterClose = closing;
        const req = http.get({ host: '127.0.0.1', port, agent, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            answers.push({ status: res.statusCode!, connection: res.headers.connection, afterClose });
            resolve(true);
          });
        });
        req.on('error', (err: NodeJS.ErrnoException) => {
          // Refused: the server no longer listens, which is how a caller learns to go elsewhere.
          if (err.code !== 'ECONNREFUSED') failures.push(err.code ?? err.message);
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
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.afterClose).every((a) => a.connection === 'close')).toBe(true);
    expect(answers.filter((a) => a.afterClose).length).toBeGreaterThan(0);
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
