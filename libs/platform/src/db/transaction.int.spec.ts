import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/infra';
import { inPgTransaction, noRead, rowsRead } from './transaction';

describe('inPgTransaction (real Postgres)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await pool.query('CREATE TABLE item (id int PRIMARY KEY)');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const ids = async () => (await pool.query<{ id: number }>('SELECT id FROM item ORDER BY id')).rows.map((r) => r.id);

  it('commits what the work wrote when it returns, and answers its result', async () => {
    const result = await inPgTransaction(pool, async (client) => {
      await client.query('INSERT INTO item VALUES (1), (2)');
      return 'done';
    });
    expect(result).toBe('done');
    expect(await ids()).toEqual([1, 2]);
  });

  it('rolls back everything when the work throws, and rethrows', async () => {
    await expect(
      inPgTransaction(pool, async (client) => {
        await client.query('INSERT INTO item VALUES (3)');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await expect(inPgTransaction(pool, (client) => client.query('INSERT INTO item VALUES (1)'))).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([1, 2]);
  });

  it('gives the connection back in a usable state either way (a pool of two survives many rounds)', async () => {
    for (let i = 0; i < 10; i++) {
      await inPgTransaction(pool, async () => {
        throw new Error('again');
      }).catch(() => undefined);
    }
    const inTx = await inPgTransaction(pool, async (client) => (await client.query<{ t: string }>('SELECT now()::text AS t')).rows.length);
    expect(inTx).toBe(1);
    expect(pool.totalCount).toBeLessThanOrEqual(2);
  });

  it('a connection the server drops while the transaction waits fails that change, not the process; the pool goes on with a new one', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const change = inPgTransaction(pool, async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // The 'error' event arrives while nothing is being sent (as while another service is called).
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query('INSERT INTO item VALUES (9)');
      });
      await expect(change).rejects.toThrow();
    } finally {
      await admin.end();
    }
    expect(await ids()).not.toContain(9);
    for (let i = 0; i < 4; i++) expect(await inPgTransaction(pool, async (tx) => (await tx.query('SELECT 1 AS one')).rows[0])).toEqual({ one: 1 });
  });

  it('sends BEGIN with the first statement and deferred writes with COMMIT, in call order', async () => {
    const sent: string[] = [];
    const seen = await inPgTransaction(pool, async (tx) => {
      tx.defer({ text: 'INSERT INTO item VALUES (10)' });
      // A query after a deferred write sees it: the write went out first, in the same round trip.
      const { rows } = await tx.query<{ n: string }>('SELECT count(*)::text AS n FROM item WHERE id = 10');
      sent.push(rows[0]!.n);
      tx.defer({ text: 'INSERT INTO item VALUES ($1)', values: [11] });
      return (await pool.query('SELECT count(*)::int AS n FROM item WHERE id IN (10, 11)')).rows[0].n as number;
    });
    expect(sent).toEqual(['1']);
    // Outside the transaction nothing was visible before COMMIT.
    expect(seen).toBe(0);
    expect(await ids()).toEqual(expect.arrayContaining([10, 11]));
  });

  it('a write deferred to COMMIT stays out of later statements: the transaction holds none of its locks until then', async () => {
    await pool.query('INSERT INTO item VALUES (30)');
    const seen = await inPgTransaction(pool, async (tx) => {
      tx.deferToCommit({ text: 'DELETE FROM item WHERE id = 30' });
      tx.defer({ text: 'INSERT INTO item VALUES (31)' });
      const inside = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM item WHERE id IN (30, 31)')).rows[0]!.n;
      // Another connection can still change the row: no lock of this transaction is on it.
      const other = await pool.connect();
      try {
        await other.query("SET lock_timeout = '1s'");
        await other.query('UPDATE item SET id = 30 WHERE id = 30');
      } finally {
        other.release();
      }
      return inside;
    });
    expect(seen).toBe(2);
    expect(await ids()).not.toContain(30);
    expect(await ids()).toContain(31);
  });

  it("a deferred write's failure surfaces at commit, translated by its onError, and nothing is kept", async () => {
    await expect(
      inPgTransaction(pool, async (tx) => {
        tx.defer({ text: 'INSERT INTO item VALUES (20)' });
        tx.defer({ text: 'INSERT INTO item VALUES (1)' }, (err) => (err.code === '23505' ? new Error('taken') : undefined));
        tx.defer({ text: 'INSERT INTO item VALUES (21)' });
      }),
    ).rejects.toThrow('taken');
    expect(await ids()).not.toContain(20);
    expect(await ids()).not.toContain(21);
  });

  it('a transaction that sent nothing sends nothing at all, not even BEGIN', async () => {
    let sent: jest.SpyInstance | undefined;
    await inPgTransaction(pool, async (tx) => {
      sent = jest.spyOn(tx.client, 'query');
    });
    // Nothing after the work either: no BEGIN, no COMMIT.
    expect(sent!).not.toHaveBeenCalled();
    sent!.mockRestore();
  });

  it('reads answer each in one round trip, and a later query in the transaction still works', async () => {
    await inPgTransaction(pool, async (tx) => {
      const [x, xs, none] = await tx.reads([
        rowsRead({ text: 'SELECT $1::int AS x', values: [5] }, (rows: { x: number }[]) => rows[0]!.x),
        rowsRead({ text: 'SELECT x FROM generate_series(1, 3) AS x' }, (rows: { x: number }[]) => rows.map((r) => r.x)),
        noRead('nothing to look up'),
      ]);
      expect([x, xs, none]).toEqual([5, [1, 2, 3], 'nothing to look up']);
      expect((await tx.query<{ y: string }>('SELECT $1::text AS y', ['z'])).rows).toEqual([{ y: 'z' }]);
    });
  });
});
