import pg from 'pg';
import { createTestDatabase, eventually, type TestDatabase } from '../testing/infra';
import { openPool } from './pool';

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
});
