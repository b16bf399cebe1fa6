import pg from 'pg';
import { createTestDatabase, eventually, type TestDatabase } from '../testing/infra';
import { ChannelListener } from './listener';

describe('ChannelListener (real Postgres)', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const listeners = async () =>
    (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);

  it('keeps exactly one listening connection when the server drops it again and again, and notifications keep arriving', async () => {
    let notified = 0;
    const warnings: unknown[] = [];
    const listener = new ChannelListener({
      connection: { connectionString: db.url },
      channel: 'test_channel',
      onNotify: () => void notified++,
      logger: { warn: (obj: unknown) => void warnings.push(obj) } as never,
      label: 'test',
      retryMs: 50,
    });
    await listener.start();
    try {
      expect(await listeners()).toHaveLength(1);
      for (let round = 1; round <= 4; round++) {
        const [pid] = await listeners();
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await eventually(async () => {
          const now = await listeners();
          return now.length === 1 && now[0] !== pid && listener.listening ? true : undefined;
        });
        const before = notified;
        await admin.query(`NOTIFY test_channel`);
        await eventually(() => (notified > before ? true : undefined));
      }
      // Several 'error' events per drop, one warning and one reconnection each.
      await new Promise((r) => setTimeout(r, 300));
      expect(await listeners()).toHaveLength(1);
      expect(warnings).toHaveLength(4);
    } finally {
      await listener.stop();
    }
    await eventually(async () => ((await listeners()).length === 0 ? true : undefined));
  });
});
