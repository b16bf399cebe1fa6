import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@pf/platform/testing/infra';
import { ACCOUNTS_MIGRATIONS_DIR, hashApiToken, seedDemoAccount } from '../src';

describe('seedDemoAccount (used by the embedded launcher)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase([{ schema: 'accounts', migrationsDir: ACCOUNTS_MIGRATIONS_DIR }]);
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('creates the team with its Standard channel, a channel and a live token, with their events', async () => {
    const demo = await seedDemoAccount({ databaseUrl: db.url });
    expect(demo).toEqual({ teamCode: 'demo', channelId: 'demo-shop', token: expect.stringMatching(/^pft_/) });
    const { rows } = await pool.query(
      `SELECT c.id, c.standard, t.token_sha256 FROM accounts.channel c
         LEFT JOIN accounts.api_token t ON t.channel_id = c.id AND t.revoked_at IS NULL ORDER BY c.id`,
    );
    expect(rows).toEqual([
      { id: 'demo-shop', standard: false, token_sha256: hashApiToken(demo.token) },
      { id: 'demo-standard', standard: true, token_sha256: null },
    ]);
    const events = await pool.query(`SELECT envelope->>'type' AS type FROM accounts.outbox_event ORDER BY seq`);
    expect(events.rows.map((r) => r.type)).toEqual(['team.created', 'channel.created', 'channel.created', 'api-token.issued']);
  });

  it('run again, keeps the team and channel and replaces the token', async () => {
    const first = await pool.query(`SELECT id FROM accounts.api_token WHERE revoked_at IS NULL`);
    const again = await seedDemoAccount({ databaseUrl: db.url });
    const { rows } = await pool.query(`SELECT id, token_sha256, revoked_at IS NULL AS live FROM accounts.api_token ORDER BY created_at`);
    expect(rows).toEqual([
      { id: first.rows[0].id, token_sha256: expect.any(String), live: false },
      { id: expect.any(String), token_sha256: hashApiToken(again.token), live: true },
    ]);
    expect((await pool.query('SELECT count(*)::int AS n FROM accounts.channel')).rows[0].n).toBe(2);
  });

  it('takes other codes and names', async () => {
    const custom = await seedDemoAccount({ databaseUrl: db.url, teamCode: 'acme', channelCode: 'web-shop', teamName: 'Acme' });
    expect(custom.channelId).toBe('acme-web-shop');
  });
});
