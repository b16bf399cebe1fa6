import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate, serviceMigrationSources } from '@pf/platform/db/migrate';
import { findPrismaDrift } from '@pf/platform/testing/prisma-drift';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { ACCOUNTS_MIGRATIONS_DIR } from '../src';

const SCHEMA_PATH = path.resolve(__dirname, '../prisma/schema.prisma');
const source = readFileSync(SCHEMA_PATH, 'utf8');

describe('accounts migrations and schema.prisma', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'accounts', migrationsDir: ACCOUNTS_MIGRATIONS_DIR }]);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('schema.prisma and the migrated database agree', async () => {
    expect(await findPrismaDrift({ schemaPath: SCHEMA_PATH, connectionString: db.url, schema: 'accounts' })).toEqual([]);
  });

  it('running the migrations again changes nothing', async () => {
    const again = await migrate({ connectionString: db.url, schema: 'accounts', sources: serviceMigrationSources(ACCOUNTS_MIGRATIONS_DIR) });
    expect(again.applied).toEqual([]);
    expect(again.skipped).toContain('service/0001_init.sql');
  });

  it('two concurrent runs on a fresh database apply each migration once', async () => {
    const fresh = await createTestDatabase();
    try {
      const run = () =>
        migrate({ connectionString: fresh.url, schema: 'accounts', sources: serviceMigrationSources(ACCOUNTS_MIGRATIONS_DIR) });
      const [a, b] = await Promise.all([run(), run()]);
      expect([...a.applied, ...b.applied].sort()).toEqual(['platform/0001_outbox_inbox.sql', 'service/0001_init.sql']);
      expect(await findPrismaDrift({ source, connectionString: fresh.url, schema: 'accounts' })).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  describe('the drift check fails when they disagree', () => {
    const drift = (text: string) => findPrismaDrift({ source: text, connectionString: db.url, schema: 'accounts' });
    const edit = (from: string, to: string) => {
      expect(source).toContain(from);
      return source.replace(from, to);
    };

    it('a field Prisma thinks is required but the column is nullable', async () => {
      const problems = await drift(edit('revokedAt   DateTime?', 'revokedAt   DateTime '));
      expect(problems).toEqual([expect.stringMatching(/api_token\.revoked_at .*required .*nullable/)]);
    });

    it('a column type that differs', async () => {
      const problems = await drift(edit('@map("revoked_at") @db.Timestamptz(3)', '@map("revoked_at")'));
      expect(problems).toEqual([expect.stringMatching(/api_token\.revoked_at .*timestamptz\(3\)/)]);
    });

    it('a field with no column', async () => {
      const problems = await drift(edit('  prefix      String\n', '  prefix      String\n  label       String?\n'));
      expect(problems).toEqual([expect.stringMatching(/api_token\.label .*does not exist/)]);
    });

    it('a migrated table or column Prisma does not know', async () => {
      const withoutTokens = source
        .replace(/\/\/\/ A channel API token[\s\S]*$/, '')
        .replace('  apiTokens ApiToken[]\n', '');
      expect(await drift(withoutTokens)).toEqual(['accounts.api_token: table is not in schema.prisma']);
      expect(await drift(edit('  prefix      String\n', ''))).toEqual([expect.stringMatching(/api_token\.prefix: column is not in model/)]);
    });

    it('a model whose table was never migrated', async () => {
      const problems = await drift(`${source}\nmodel Ghost {\n  id String @id\n  @@map("ghost")\n  @@schema("accounts")\n}\n`);
      expect(problems).toEqual([expect.stringMatching(/accounts\.ghost .*does not exist/)]);
    });

    it('a unique, key or relation the database does not back', async () => {
      expect(await drift(edit('  prefix      String\n', '  prefix      String @unique\n'))).toEqual([
        expect.stringMatching(/no unique index on \(prefix\)/),
      ]);
      expect(await drift(edit('  name      String\n  active    Boolean   @default(true)', '  name      String  @id\n  active    Boolean   @default(true)'))).toEqual(
        [expect.stringMatching(/team .*primary key is \(code\) but Prisma says \(name\)/)],
      );
      expect(await drift(edit('@relation(fields: [teamCode], references: [code])', '@relation(fields: [name], references: [code])'))).toEqual([
        expect.stringMatching(/channel .*no foreign key \(name\) -> team \(code\)/),
      ]);
    });

    it('a change made to the database behind the migrations’ back', async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query('ALTER TABLE accounts.channel ADD COLUMN colour TEXT');
        await client.query('ALTER TABLE accounts.team ALTER COLUMN name DROP NOT NULL');
        const problems = await drift(source);
        expect(problems).toEqual([
          expect.stringMatching(/team\.name .*required but the column is nullable/),
          'accounts.channel.colour: column is not in model Channel',
        ]);
      } finally {
        await client.query('ALTER TABLE accounts.channel DROP COLUMN IF EXISTS colour');
        await client.query('ALTER TABLE accounts.team ALTER COLUMN name SET NOT NULL');
        await client.end();
      }
      expect(await drift(source)).toEqual([]);
    });
  });
});
