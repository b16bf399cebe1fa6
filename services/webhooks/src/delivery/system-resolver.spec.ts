import dgram from 'node:dgram';
import { SystemResolver } from './system-resolver';

describe('SystemResolver', () => {
  it('gives up a resolution after its limit, however long c-ares would keep trying', async () => {
    // A DNS server on loopback that never answers.
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const { port } = silent.address();
    try {
      const resolver = new SystemResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 5000, tries: 4, limitMs: 300 });
      await expect(resolver.resolve('hooks.example.com')).rejects.toMatchObject({ code: 'ETIMEOUT', message: expect.stringMatching(/within 300 ms/) });
    } finally {
      silent.close();
    }
  });
});
