import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, eventually, freePort, testInfra, withDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { ACCOUNTS_MIGRATIONS_DIR } from '../src/index';
import { ACCOUNTS_SCHEMA } from '../src/use-cases/deps';

const MAIN = path.resolve(__dirname, '../dist/main.js');
const MIGRATE = path.resolve(__dirname, '../dist/migrate.js');

/** The env a production accounts process needs here (in-memory bus: no broker in these checks). */
function envFor(databaseUrl: string, port: number): Record<string, string> {
  return { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, EVENT_BUS: 'memory', JWT_VERIFY_KEY: 'k', PORT: String(port), HOST: '127.0.0.1' };
}

function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

function migrateWith(databaseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [MIGRATE], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl }, timeout: 30_000 }, (err) =>
      err ? reject(err) : resolve(),
    );
  });
}

async function readiness(port: number): Promise<{ status: number; body: { failures?: Record<string, string> } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { failures?: Record<string, string> } };
}

/** The newest of the service's own migrations, as the runner records it. */
async function newestServiceMigration(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string }>(
      `SELECT name FROM "${ACCOUNTS_SCHEMA}".schema_migrations WHERE name LIKE 'service/%' ORDER BY name DESC LIMIT 1`,
    );
    return rows[0]!.name;
  } finally {
    await c.end();
  }
}

describe('a service process and the migrations of its schema', () => {
  let db: TestDatabase;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: ACCOUNTS_SCHEMA, migrationsDir: ACCOUNTS_MIGRATIONS_DIR }]);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('refuses to start on a schema that lacks one of its migrations: exit 75, one line naming the migration, nothing served', async () => {
    const missing = await newestServiceMigration(db.url);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(`DELETE FROM "${ACCOUNTS_SCHEMA}".schema_migrations WHERE name = $1`, [missing]);
    try {
      const port = await freePort();
      const { code, stdout, stderr } = await runToExit(envFor(db.url, port));
      expect(code).toBe(75);
      expect(stderr).toBe('');
      const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string; pendingMigrations?: string[] });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 60, pendingMigrations: [missing] });
      expect(lines[0]!.msg).toContain(`schema ${ACCOUNTS_SCHEMA} lacks a migration this release needs (${missing})`);
      expect(lines[0]!.msg).toContain('dist/migrate.js');
    } finally {
      await c.end();
    }
  }, 40_000);

  it('started while its database is missing, it serves but is not ready until the schema is migrated', async () => {
    const name = `${db.name}_late`;
    const lateUrl = withDatabase(testInfra.postgresAdminUrl, name);
    const port = await freePort();
    const output: string[] = [];
    const child = spawn(process.execPath, [MAIN], { env: envFor(lateUrl, port), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const admin = new pg.Client({ connectionString: testInfra.postgresAdminUrl });
    await admin.connect();
    try {
      const notReady = await eventually(() => readiness(port).catch(() => undefined), 20_000, 100);
      expect(notReady.status).toBe(503);
      expect(Object.keys(notReady.body.failures ?? {})).toEqual(expect.arrayContaining(['schema']));
      expect(output.join('')).toContain('could not check at start that the database schema has every migration');

      await admin.query(`CREATE DATABASE ${name}`);
      // Created but empty: reachable now, still not ready, and the reason names the migrations.
      const empty = await eventually(async () => {
        const r = await readiness(port);
        return r.body.failures?.schema?.includes('lacks') ? r : undefined;
      }, 20_000, 100);
      expect(empty.status).toBe(503);
      expect(empty.body.failures!.schema).toContain('platform/0001_outbox_inbox.sql');

      await migrateWith(lateUrl);
      const ready = await eventually(async () => {
        const r = await readiness(port);
        return r.status === 200 ? r : undefined;
      }, 20_000, 100);
      expect(ready.status).toBe(200);

      // The production runner serves the process's metrics: Node's, HTTP and the outbox backlog.
      await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain('pf_outbox_unpublished_events{schema="accounts",service="accounts"} 0');
      expect(metrics).toMatch(/^http_server_request_duration_seconds_count\{service="accounts",method="GET",route="\/readyz",status_code="503"\} \d+$/m);
      expect(metrics).toMatch(/^http_server_request_duration_seconds_count\{service="accounts",method="POST",route="\/graphql",status_code="\d+"\} 1$/m);
      expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds\{service="accounts"\} /m);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 90_000);
});
