import net from 'node:net';
import pg from 'pg';
import { createTestDatabase, eventually, type TestDatabase } from '../testing/infra';
import { CONNECTION_DEFAULTS, idleInTransactionBound, openPool, withClient } from './pool';
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
    // The server holds the session to it.
    expect((await defaults.query('SHOW idle_in_transaction_session_timeout')).rows).toEqual([{ idle_in_transaction_session_timeout: '1min' }]);
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

  it('a transaction left idle past its bound is ended by the server: its row locks go to the next change, its own connection is dropped, and the pool goes on', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query('CREATE TABLE idle_guard (id int PRIMARY KEY, n int NOT NULL); INSERT INTO idle_guard VALUES (1, 0)');
    const stalled = openPool({ connectionString: db.url, max: 1, idle_in_transaction_session_timeout: 300 }, undefined, 'stalled');
    const next = openPool({ connectionString: db.url, max: 1, lock_timeout: 10_000 }, undefined, 'next');
    try {
      // A change that locked its row, then stopped (a frozen process): its connection stays open.
      const stalledChange = withClient(stalled, async (client) => {
        await client.query('BEGIN');
        await client.query('UPDATE idle_guard SET n = n + 1 WHERE id = 1');
        await new Promise((r) => setTimeout(r, 1_000));
        return client.query('COMMIT');
      });
      const outcome = stalledChange.then(() => 'committed', (err: { code?: string }) => err.code ?? 'closed');
      // Without the bound this would wait for the stalled change as long as it lives (here: 10 s, then fail).
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await next.query('UPDATE idle_guard SET n = n + 10 WHERE id = 1');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await outcome).not.toBe('committed');
      // Only the second change's write is there; the stalled pool serves its next caller.
      expect((await admin.query('SELECT n FROM idle_guard')).rows).toEqual([{ n: 10 }]);
      expect((await stalled.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await stalled.end();
      await next.end();
      await admin.end();
    }
  });

  it('a pool whose transactions wait on another service allows four such calls between two statements, never less than the default', () => {
    expect(idleInTransactionBound(10_000, 4)).toBe(60_000);
    expect(idleInTransactionBound(30_000, 4)).toBe(120_000);
    expect(idleInTransactionBound(30_000, 1)).toBe(60_000);
  });
});
