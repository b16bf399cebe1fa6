import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/infra';
import { queryBatch, type BatchError } from './batch';

describe('queryBatch (real Postgres)', () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('CREATE TABLE thing (id int PRIMARY KEY, name text, at timestamptz, tags text[], doc jsonb)');
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('runs the statements in order and answers rows, counts and commands, with values typed as pg types them', async () => {
    const at = new Date('2026-11-25T10:00:00.123Z');
    const results = await queryBatch(client, [
      { text: 'INSERT INTO thing (id, name, at, tags, doc) VALUES ($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10)', values: [1, 'a', at, ['x', 'y'], { k: 1 }, 2, null, at, [], null] },
      { text: 'UPDATE thing SET name = $1 WHERE id = $2', values: ['b', 2] },
      { text: 'SELECT id, name, at, tags, doc, 7::bigint AS big FROM thing ORDER BY id' },
    ]);
    expect(results.map((r) => [r.command, r.rowCount])).toEqual([
      ['INSERT', 2],
      ['UPDATE', 1],
      ['SELECT', 2],
    ]);
    expect(results[2]!.rows).toEqual([
      { id: 1, name: 'a', at, tags: ['x', 'y'], doc: { k: 1 }, big: '7' },
      { id: 2, name: 'b', at, tags: [], doc: null, big: '7' },
    ]);
  });

  it('stops at the first failure, names its index, and the statements after it do not run', async () => {
    const err = (await queryBatch(client, [
      { text: 'INSERT INTO thing (id) VALUES (3)' },
      { text: 'INSERT INTO thing (id) VALUES (1)' },
      { text: 'INSERT INTO thing (id) VALUES (4)' },
    ]).catch((e: unknown) => e)) as BatchError & { code?: string };
    expect(err.code).toBe('23505');
    expect(err.batchIndex).toBe(1);
    // Outside a transaction block the batch is one implicit transaction: the first insert is gone too.
    expect((await client.query('SELECT id FROM thing WHERE id IN (3, 4)')).rowCount).toBe(0);
    // The connection is usable afterwards, by batches and by pg's own queries.
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('prepares a named statement once per connection and binds it afterwards, also after a failed batch', async () => {
    const named = (id: number) => ({ name: 'test.insert', text: 'INSERT INTO thing (id) VALUES ($1) RETURNING id', values: [id] });
    expect((await queryBatch(client, [named(10)]))[0]!.rows).toEqual([{ id: 10 }]);
    // The statement fails at execution, after it is prepared: the next batch must not parse it again blindly.
    await expect(queryBatch(client, [named(10)])).rejects.toMatchObject({ code: '23505', batchIndex: 0 });
    // A syntax error in a statement parsed in the same batch as a named one that never got parsed.
    await expect(queryBatch(client, [{ text: 'SELEC 1' }, { name: 'test.other', text: 'SELECT $1::int AS v', values: [1] }])).rejects.toMatchObject({ batchIndex: 0 });
    const [a, b] = await queryBatch(client, [named(11), { name: 'test.other', text: 'SELECT $1::int AS v', values: [2] }]);
    expect(a!.rows).toEqual([{ id: 11 }]);
    expect(b!.rows).toEqual([{ v: 2 }]);
    const prepared = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'b:test.%' ORDER BY name");
    expect(prepared.rows.map((r) => r.name)).toEqual(['b:test.insert', 'b:test.other']);
  });

  it('refuses a value pg cannot send before writing anything, and the connection goes on', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(queryBatch(client, [{ text: 'SELECT $1::jsonb', values: [circular] }])).rejects.toThrow();
    expect((await queryBatch(client, [{ text: 'SELECT 2 AS two' }]))[0]!.rows).toEqual([{ two: 2 }]);
  });
});
