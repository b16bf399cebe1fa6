import http from 'node:http';
import path from 'node:path';
import express from 'express';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { closeServer, Lifecycle, listen } from '@pf/platform/http/lifecycle';
import { signIdentity, type JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import type { ServiceInstance } from '@pf/platform/service/service';
import { findPrismaDrift } from '@pf/platform/testing/prisma-drift';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { stockService, STOCK_MIGRATIONS_DIR } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'stock-test-secret-stock-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('stock service process', () => {
  let db: TestDatabase;
  let instance: ServiceInstance;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'stock', migrationsDir: STOCK_MIGRATIONS_DIR }]);
    const logger = createLogger('stock-test', 'silent');
    instance = await stockService.create({ databaseUrl: db.url, bus: new InMemoryEventBus(logger), jwt, logger, env: { NODE_ENV: 'test' } });
    await instance.start();
    // The same wiring as the production runner: health routes in front of the service's app.
    const lifecycle = new Lifecycle(logger);
    lifecycle.addReadinessCheck('stock', () => instance.ready());
    const root = express();
    lifecycle.mountHealth(root);
    root.use(instance.app);
    server = http.createServer(root);
    base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  }, 30_000);
  afterAll(async () => {
    if (server) await closeServer(server);
    await instance?.stop();
    await db?.drop();
  }, 30_000);

  it('owns Postgres schema stock, migrated with the platform tables, and migrating again changes nothing', async () => {
    expect(stockService.schema).toBe('stock');
    const again = await migrate({ connectionString: db.url, schema: 'stock', sources: serviceMigrationSources(STOCK_MIGRATIONS_DIR) });
    expect(again).toEqual({ applied: [], skipped: ['platform/0001_outbox_inbox.sql', 'service/0001_stock.sql', 'service/0002_stock_level_figure_index.sql', 'service/0003_hold_returns.sql'] });
  });

  it('schema.prisma and the migrated database agree', async () => {
    const schemaPath = path.resolve(__dirname, '../prisma/schema.prisma');
    expect(await findPrismaDrift({ schemaPath, connectionString: db.url, schema: 'stock' })).toEqual([]);
  });

  it('answers /healthz and /readyz', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('serves its subgraph SDL to callers with an identity JWT, and nothing to callers without', async () => {
    const query = JSON.stringify({ query: '{ _service { sdl } }' });
    const anonymous = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: query });
    expect(anonymous.status).toBe(401);
    const authorization = `Bearer ${signIdentity({ kind: 'service', service: 'test' }, jwt)}`;
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: query });
    const body = (await res.json()) as { data: { _service: { sdl: string } } };
    expect(body.data._service.sdl).toContain('https://specs.apollo.dev/federation/v2.7');
  });
});
