// The Postgres side of the deployment: the CloudNativePG cluster has one role per service schema,
// each service (and its migration Job) connects as its own role, and the bootstrap SQL, run for
// real on the test server, gives each role its schema and nothing else: every service's real
// migrations succeed under its own role, and no role can read or create outside its schema.
import pg from 'pg';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { createTestDatabase, testInfra, uniqueSuffix, withDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { OVERLAYS, SERVICE_DIRS, configMapByBaseName, containerEnv, mainContainer, named, ofKind, readRepoFile, render } from './support/deploy';
import { servicesWithSchema } from './support/services';

const SERVICES = Object.keys(SERVICE_DIRS);
const owners = servicesWithSchema();
const bootstrapSql = readRepoFile('deploy/k8s/base/platform/postgres-bootstrap.sql');

type ManagedRole = { name: string; login: boolean; passwordSecret: { name: string }; superuser?: boolean; createdb?: boolean; createrole?: boolean };

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  test('one managed role per service schema, used by that service and its migration Job only', () => {
    const objects = render(overlay);
    const cluster = ofKind(objects, 'Cluster')[0]!;
    const roles = cluster.spec.managed.roles as ManagedRole[];
    expect(roles.map((r) => r.name).sort()).toEqual(owners.map((o) => o.schema).sort());
    for (const r of roles) {
      expect(r.login).toBe(true);
      expect([r.superuser, r.createdb, r.createrole].some(Boolean)).toBe(false);
    }
    for (const { service, schema } of owners) {
      const role = roles.find((r) => r.name === schema)!;
      for (const workload of [named(objects, 'Deployment', service), named(objects, 'Job', `${service}-migrate`)]) {
        const env = containerEnv(objects, mainContainer(workload));
        const url = (env.vars.get('DATABASE_URL') as { value: string }).value;
        expect(new URL(url.replace(/\$\([A-Z_]+\)/g, 'x')).username).toBe(role.name);
        expect(env.vars.get('PGPASSWORD')).toMatchObject({ from: 'secret', secret: role.passwordSecret.name });
      }
    }
    // Services without a schema get no database.
    for (const svc of SERVICES.filter((s) => !owners.some((o) => o.service === s))) {
      const env = containerEnv(objects, mainContainer(named(objects, 'Deployment', svc)));
      expect((env.vars.get('DATABASE_URL') as { value?: string } | undefined)?.value ?? '').toBe('');
    }
    // The bootstrap SQL prepares exactly these schemas, and the cluster runs exactly that file.
    const listed = /ARRAY\[([^\]]*)\]/.exec(bootstrapSql)![1]!.match(/'([a-z_]+)'/g)!.map((s) => s.slice(1, -1));
    expect(listed.sort()).toEqual(owners.map((o) => o.schema).sort());
    const bootstrap = configMapByBaseName(objects, 'pf-postgres-bootstrap')!;
    expect(cluster.spec.bootstrap.initdb.postInitApplicationSQLRefs.configMapRefs).toEqual([{ name: bootstrap.metadata.name, key: 'postgres-bootstrap.sql' }]);
    expect(bootstrap.data!['postgres-bootstrap.sql']).toBe(bootstrapSql);
  });
});

describe('the bootstrap SQL on a real Postgres', () => {
  // Roles are server-wide: a suffix keeps this suite's roles apart from any other run's.
  const suffix = `_t${uniqueSuffix()}`;
  const roleOf = (schema: string) => schema + suffix;
  let db: TestDatabase;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`SET pf.role_suffix = '${suffix}'`);
    await admin.query(bootstrapSql);
    // What CloudNativePG's managed roles add: LOGIN (the test server trusts local connections).
    for (const { schema } of owners) await admin.query(`ALTER ROLE "${roleOf(schema)}" LOGIN`);
  });

  afterAll(async () => {
    await admin?.end();
    await db?.drop();
    const c = new pg.Client({ connectionString: testInfra.postgresAdminUrl });
    await c.connect();
    try {
      for (const { schema } of owners) await c.query(`DROP ROLE IF EXISTS "${roleOf(schema)}"`);
    } finally {
      await c.end();
    }
  });

  const asRole = async <T>(schema: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const url = new URL(db.url);
    url.username = roleOf(schema);
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  test('every service migrates its own schema as its own role (twice: the Job is safe to re-run)', async () => {
    for (const { schema, migrationsDir } of owners) {
      const url = new URL(withDatabase(testInfra.postgresAdminUrl, db.name));
      url.username = roleOf(schema);
      const first = await migrate({ connectionString: url.toString(), schema, sources: serviceMigrationSources(migrationsDir) });
      expect(first.applied.length).toBeGreaterThan(0);
      const again = await migrate({ connectionString: url.toString(), schema, sources: serviceMigrationSources(migrationsDir) });
      expect(again.applied).toEqual([]);
    }
  });

  test('a role reads and writes its own schema, and cannot see another schema, create schemas, or use public', async () => {
    const [mine, other] = [owners[0]!.schema, owners[1]!.schema];
    await asRole(mine, async (c) => {
      // Unqualified names resolve to the role's own schema.
      expect((await c.query('SELECT current_schema() AS s')).rows[0].s).toBe(mine);
      await c.query('SELECT count(*) FROM outbox_event');
      await expect(c.query(`SELECT count(*) FROM "${other}".outbox_event`)).rejects.toThrow(/permission denied/);
      await expect(c.query(`CREATE TABLE "${other}".intruder (id int)`)).rejects.toThrow(/permission denied/);
      await expect(c.query('CREATE SCHEMA intruder')).rejects.toThrow(/permission denied/);
      await expect(c.query('CREATE TABLE public.intruder (id int)')).rejects.toThrow(/permission denied/);
    });
  });

  test('the bootstrap is idempotent (a re-run of the init step changes nothing and fails nothing)', async () => {
    await admin.query(bootstrapSql);
    const { rows } = await admin.query<{ nspname: string; owner: string }>(
      `SELECT n.nspname, r.rolname AS owner FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname = ANY($1)`,
      [owners.map((o) => o.schema)],
    );
    expect(rows.map((r) => [r.nspname, r.owner]).sort()).toEqual(owners.map((o) => [o.schema, roleOf(o.schema)]).sort());
  });
});
