import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/infra';
import { inPgTransaction } from './transaction';

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
});
