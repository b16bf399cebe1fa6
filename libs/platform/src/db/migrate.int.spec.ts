import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/infra';
import { migrate, pendingMigrations, PLATFORM_MIGRATIONS_DIR, serviceMigrationSources, type MigrationSource } from './migrate';

describe('migrate (real Postgres)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let dirs: string[] = [];
  let schemaCounter = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  afterEach(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    dirs = [];
  });

  /** A fresh schema name per test, so tests share the database but nothing else. */
  function freshSchema(): string {
    schemaCounter += 1;
    return `m${schemaCounter}`;
  }

  async function migrationsDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'pf-migrate-test-'));
    dirs.push(dir);
    for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql);
    return dir;
  }

  async function recorded(schema: string): Promise<string[]> {
    const { rows } = await pool.query<{ name: string }>(`SELECT name FROM "${schema}".schema_migrations ORDER BY applied_at, name`);
    return rows.map((r) => r.name);
  }

  const run = (schema: string, sources: MigrationSource[]) => migrate({ connectionString: db.url, schema, sources });

  it("waits a bounded time for a lock, so the serving release's queries are not queued behind it; tries the file again, and fails naming it once the retries are used up", async () => {
    const schema = freshSchema();
    await run(schema, serviceMigrationSources(await migrationsDir({ '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);' })));
    const later = serviceMigrationSources(await migrationsDir({
      '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);',
      '0002_colour.sql': 'ALTER TABLE widget ADD COLUMN colour TEXT;',
    }));
    // A long transaction of the running release holds a lock on the table.
    const holder = await pool.connect();
    const reader = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT * FROM "${schema}".widget`);
      const lockWait = { timeoutMs: 200, retryWaitsMs: [100, 100] };
      const refused = await migrate({ connectionString: db.url, schema, sources: later, lockWait }).then(() => undefined, (err: Error) => err);
      expect(refused?.message).toMatch(/Migration service\/0002_colour\.sql failed in schema m\d+: .*lock timeout/);
      // Meanwhile the table stayed readable: nothing queued behind the migration for long.
      await reader.query("SET statement_timeout = '2s'");
      await expect(reader.query(`SELECT count(*) FROM "${schema}".widget`)).resolves.toBeDefined();
      expect((await reader.query<{ name: string }>(`SELECT name FROM "${schema}".schema_migrations`)).rows.map((r) => r.name)).not.toContain('service/0002_colour.sql');

      // The transaction ends while the migration waits between attempts: the next attempt goes through.
      const retried = migrate({ connectionString: db.url, schema, sources: later, lockWait: { timeoutMs: 200, retryWaitsMs: [300, 300, 300] } });
      setTimeout(() => void holder.query('COMMIT'), 250);
      expect((await retried).applied).toEqual(['service/0002_colour.sql']);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      reader.release();
    }
  });

  it('applies platform then service files in name order, inside the service schema', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({
      // Written out of order on purpose: 0002 needs 0001's table.
      '0002_add_column.sql': 'ALTER TABLE widget ADD COLUMN colour TEXT;',
      '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);',
      'README.md': 'not a migration',
      '0003_Bad-Name.sql': 'SELECT 1/0;',
    });
    const result = await run(schema, serviceMigrationSources(dir));
    expect(result.applied).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_widget.sql', 'service/0002_add_column.sql']);
    expect(result.skipped).toEqual([]);
    expect(await recorded(schema)).toEqual(result.applied);
    // Unqualified names landed in the service schema, not in public.
    const { rows } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual(['inbox_event', 'outbox_event', 'schema_migrations', 'widget']);
    expect(PLATFORM_MIGRATIONS_DIR).toMatch(/libs[/\\]platform[/\\]migrations$/);
  });

  it('applies nothing when run a second time, and only new files after that', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({ '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);' });
    await run(schema, serviceMigrationSources(dir));
    const again = await run(schema, serviceMigrationSources(dir));
    expect(again.applied).toEqual([]);
    expect(again.skipped).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_widget.sql']);

    await writeFile(path.join(dir, '0002_more.sql'), 'CREATE TABLE gadget (id INT);');
    const third = await run(schema, serviceMigrationSources(dir));
    expect(third.applied).toEqual(['service/0002_more.sql']);
  });

  it('lets concurrent runs wait for each other: no failure, every file applied exactly once', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({
      '0001_log.sql': 'CREATE TABLE applied_log (what TEXT NOT NULL);',
      // Not idempotent on purpose: a second application would add a second row.
      '0002_seed.sql': `SELECT pg_sleep(0.2); INSERT INTO applied_log VALUES ('seed');`,
    });
    const results = await Promise.all([1, 2, 3].map(() => run(schema, serviceMigrationSources(dir))));
    const applied = results.flatMap((r) => r.applied).sort();
    expect(applied).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_log.sql', 'service/0002_seed.sql']);
    // Whoever did not apply a file saw it as already applied.
    for (const r of results) expect([...r.applied, ...r.skipped].sort()).toEqual(applied);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".applied_log`);
    expect(rows[0].n).toBe(1);
  });

  it('stops when an applied file was edited, naming it, and applies nothing after it', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({ '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);' });
    await run(schema, serviceMigrationSources(dir));
    await writeFile(path.join(dir, '0001_widget.sql'), 'CREATE TABLE widget (id BIGINT PRIMARY KEY);');
    await writeFile(path.join(dir, '0002_more.sql'), 'CREATE TABLE gadget (id INT);');
    await expect(run(schema, serviceMigrationSources(dir))).rejects.toThrow(
      `Migration service/0001_widget.sql in schema ${schema} was changed after it was applied`,
    );
    expect(await recorded(schema)).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_widget.sql']);
  });

  it('rolls back a failing file, records it not, and keeps the ones before it', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({
      '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);',
      '0002_broken.sql': 'CREATE TABLE half_done (id INT); SELECT no_such_function();',
    });
    await expect(run(schema, serviceMigrationSources(dir))).rejects.toThrow(/Migration service\/0002_broken.sql failed in schema m\d+: .*no_such_function/);
    expect(await recorded(schema)).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_widget.sql']);
    const { rows } = await pool.query(`SELECT to_regclass($1) AS t`, [`${schema}.half_done`]);
    expect(rows[0].t).toBeNull();

    // Fixed, it applies on the next run.
    await writeFile(path.join(dir, '0002_broken.sql'), 'CREATE TABLE half_done (id INT);');
    expect((await run(schema, serviceMigrationSources(dir))).applied).toEqual(['service/0002_broken.sql']);
  });

  it('names the migrations a schema lacks: all of them before the first run, none after, the one whose record is gone', async () => {
    const schema = freshSchema();
    const dir = await migrationsDir({
      '0001_widget.sql': 'CREATE TABLE widget (id INT PRIMARY KEY);',
      // Idempotent: applied again below once its record is gone.
      '0002_more.sql': 'CREATE TABLE IF NOT EXISTS gadget (id INT);',
    });
    const pending = () => pendingMigrations({ connectionString: db.url, schema, sources: serviceMigrationSources(dir) });
    expect(await pending()).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_widget.sql', 'service/0002_more.sql']);
    await run(schema, serviceMigrationSources(dir));
    expect(await pending()).toEqual([]);

    await pool.query(`DELETE FROM "${schema}".schema_migrations WHERE name = 'service/0002_more.sql'`);
    expect(await pending()).toEqual(['service/0002_more.sql']);
    // A migration the sources do not name (a newer release's, seen after a rollback) is no gap.
    await run(schema, serviceMigrationSources(dir));
    await writeFile(path.join(dir, '0003_newer.sql'), 'CREATE TABLE newer (id INT);');
    await run(schema, serviceMigrationSources(dir));
    await rm(path.join(dir, '0003_newer.sql'));
    expect(await pending()).toEqual([]);
  });

  it('refuses a schema name that would need quoting', async () => {
    await expect(run('Robert"); DROP', [])).rejects.toThrow('Invalid schema name');
    await expect(pendingMigrations({ connectionString: db.url, schema: 'Robert"); DROP', sources: [] })).rejects.toThrow('Invalid schema name');
  });
});
