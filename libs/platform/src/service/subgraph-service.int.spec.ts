import { parse } from 'graphql';
import { InMemoryEventBus } from '../bus/memory';
import { createLogger } from '../logging';
import { testInfra } from '../testing/infra';
import { tcpRelay } from '../testing/tcp-relay';
import { createSubgraphService } from './subgraph-service';

/** A relay to the test Postgres that can be taken away, and the URL that goes through it. */
async function postgresRelay(): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(testInfra.postgresAdminUrl);
  const relay = await tcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
  const url = new URL(testInfra.postgresAdminUrl);
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  return { url: url.toString(), cut: relay.cut };
}

function service(databaseUrl: string) {
  const logger = createLogger('subgraph-service-test', 'silent');
  return createSubgraphService({
    name: 'probe',
    schema: 'probe',
    databaseUrl,
    bus: new InMemoryEventBus(logger),
    jwt: { algorithm: 'HS256', key: 'k', issuer: 'i', audience: 'a' },
    logger,
    typeDefs: parse('type Query { ping: String }'),
    resolvers: { Query: { ping: () => 'pong' } },
  });
}

describe('a subgraph service is ready once its database has answered', () => {
  it('stays ready through a database outage that comes after: each request answers it, the pods stay in service', async () => {
    const relay = await postgresRelay();
    const instance = await service(relay.url);
    try {
      await instance.ready();
      await relay.cut();
      await expect(instance.pool.query('SELECT 1')).rejects.toThrow();
      await expect(instance.ready()).resolves.toBeUndefined();
    } finally {
      await instance.pool.end().catch(() => undefined);
    }
  });

  it('is not ready while its database has never answered', async () => {
    const relay = await postgresRelay();
    await relay.cut();
    const instance = await service(relay.url);
    try {
      await expect(instance.ready()).rejects.toThrow();
    } finally {
      await instance.pool.end().catch(() => undefined);
    }
  });
});
