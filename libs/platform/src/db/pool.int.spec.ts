import net from 'node:net';
import pg from 'pg';
import { createTestDatabase, eventually, type TestDatabase } from '../testing/infra';
import { CONNECTION_DEFAULTS, openPool } from './pool';
import { isDatabaseUnreachable } from './unreachable';

describe('openPool (real Postgres)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('an idle connection the server closes is logged and replaced; the process goes on', async () => {
    const warnings: unknown[] = [];
    const pool = openPool({ connectionString: db.url, max: 2 }, { warn: (obj: unknown) => void warnings.push(obj) } as never, 'test');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const pid = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(async () => (warnings.length > 0 ? true : undefined));
      expect(warnings[0]).toMatchObject({ pool: 'test' });
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await pool.end();
    }
  });

  it('opens connections with TCP keep-alive and a bounded wait unless told otherwise; a server that never answers is an outage, not a hang', async () => {
    const defaults = openPool({ connectionString: db.url }, undefined, 'test');
    expect(defaults.options).toMatchObject({ keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 10_000 });
    expect(CONNECTION_DEFAULTS.connectionTimeoutMillis).toBe(10_000);
    await defaults.end();

    // Accepts the connection, never says a word.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const pool = openPool({ connectionString: `postgres://postgres@127.0.0.1:${port}/x`, connectionTimeoutMillis: 300 }, undefined, 'test');
    try {
      const started = Date.now();
      const failure = await pool.query('SELECT 1').then(() => undefined, (err: unknown) => err);
      expect(isDatabaseUnreachable(failure)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await pool.end();
      silent.close();
    }
  });
});
