import { Kafka, logLevel } from 'kafkajs';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import { createLogger } from '@pf/platform/logging';
import { eventually, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { withClockAhead } from '@pf/platform/testing/clock';
import { AccountsUseCases, createPrismaClient } from '../src';
import {
  backOffice,
  CREATE_CHANNEL,
  CREATE_TEAM,
  ISSUE_TOKEN,
  issueToken,
  operator,
  REVOKE_TOKEN,
  startAccounts,
  teamWithChannel,
  UPDATE_CHANNEL,
  UPDATE_TEAM,
  type AccountsHarness,
} from './harness';

interface OutboxRow {
  topic: string;
  event_key: string;
  envelope: EventEnvelope;
}

describe('accounts events: outbox in the same transaction', () => {
  let h: AccountsHarness;

  beforeAll(async () => {
    h = await startAccounts();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function outboxAfter(seq: number): Promise<OutboxRow[]> {
    const { rows } = await h.pool.query<OutboxRow>(
      'SELECT topic, event_key, envelope FROM accounts.outbox_event WHERE seq > $1 ORDER BY seq',
      [seq],
    );
    return rows;
  }
  async function lastSeq(): Promise<number> {
    const { rows } = await h.pool.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM accounts.outbox_event');
    return Number(rows[0]?.seq ?? 0);
  }
  const summary = (rows: OutboxRow[]) => rows.map((r) => [r.topic, r.event_key, r.envelope.type]);

  it('every change writes its events, keyed by team code or channel id', async () => {
    let seq = await lastSeq();
    await h.ok(operator, CREATE_TEAM, { input: { code: 'evt', name: 'Events' } });
    let rows = await outboxAfter(seq);
    expect(summary(rows)).toEqual([
      [TOPICS.teams, 'evt', 'team.created'],
      [TOPICS.channels, 'evt-standard', 'channel.created'],
    ]);
    expect(rows[0]!.envelope).toMatchObject({ aggregateType: 'team', aggregateId: 'evt', schemaVersion: 1, payload: { teamCode: 'evt', name: 'Events', active: true } });
    expect(rows[1]!.envelope.payload).toEqual({
      channelId: 'evt-standard',
      teamCode: 'evt',
      channelCode: 'standard',
      name: 'Standard',
      active: true,
      standard: true,
    });

    seq = await lastSeq();
    await h.ok(backOffice('evt'), CREATE_CHANNEL, { input: { code: 'shop', name: 'Shop' } });
    await h.ok(backOffice('evt'), UPDATE_CHANNEL, { id: 'evt-shop', input: { active: false } });
    await h.ok(operator, UPDATE_TEAM, { code: 'evt', input: { name: 'Renamed', active: false } });
    rows = await outboxAfter(seq);
    expect(summary(rows)).toEqual([
      [TOPICS.channels, 'evt-shop', 'channel.created'],
      [TOPICS.channels, 'evt-shop', 'channel.updated'],
      [TOPICS.teams, 'evt', 'team.updated'],
    ]);
    expect(rows[1]!.envelope.payload).toMatchObject({ channelId: 'evt-shop', active: false });
    expect(rows[2]!.envelope.payload).toEqual({ teamCode: 'evt', name: 'Renamed', active: false });

    seq = await lastSeq();
    const first = await issueToken(h, 'evt-shop');
    const { issueApiToken: second } = await h.ok(backOffice('evt'), ISSUE_TOKEN, { channelId: 'evt-shop' });
    await h.ok(backOffice('evt'), REVOKE_TOKEN, { channelId: 'evt-shop' });
    rows = await outboxAfter(seq);
    expect(summary(rows)).toEqual([
      [TOPICS.apiTokens, 'evt-shop', 'api-token.issued'],
      [TOPICS.apiTokens, 'evt-shop', 'api-token.issued'],
      [TOPICS.apiTokens, 'evt-shop', 'api-token.revoked'],
    ]);
    expect(rows.map((r) => r.envelope.payload)).toEqual([
      { tokenId: first.id, channelId: 'evt-shop', teamCode: 'evt', revokedTokenId: null },
      { tokenId: second.apiToken.id, channelId: 'evt-shop', teamCode: 'evt', revokedTokenId: first.id },
      { tokenId: second.apiToken.id, channelId: 'evt-shop', teamCode: 'evt' },
    ]);
  });

  it('a change that changes nothing writes no event', async () => {
    await teamWithChannel(h, 'noop');
    const seq = await lastSeq();
    await h.ok(backOffice('noop'), UPDATE_CHANNEL, { id: 'noop-shop', input: { name: 'Shop', active: true } });
    await h.ok(backOffice('noop'), UPDATE_TEAM, { code: 'noop', input: { name: 'Team noop' } });
    expect(await h.ok(backOffice('noop'), REVOKE_TOKEN, { channelId: 'noop-shop' })).toEqual({ revokeApiToken: false });
    expect(await outboxAfter(seq)).toEqual([]);
  });

  it('team and channel events are stamped in the order of the changes, not by the clock of the replica that made each', async () => {
    await teamWithChannel(h, 'clk');
    const seq = await lastSeq();
    // A replica whose clock runs an hour ahead deactivates the channel and renames the team...
    const prisma = createPrismaClient(h.db.url, 2);
    try {
      const ahead = new AccountsUseCases({ prisma });
      await withClockAhead(3_600_000, async () => {
        await ahead.updateChannel(operator, 'clk-shop', { active: false });
        await ahead.updateTeam(operator, 'clk', { name: 'Renamed ahead' });
      });
    } finally {
      await prisma.$disconnect();
    }
    // ...then this one, on time, reactivates it and renames the team again.
    await h.ok(backOffice('clk'), UPDATE_CHANNEL, { id: 'clk-shop', input: { active: true } });
    await h.ok(backOffice('clk'), UPDATE_TEAM, { code: 'clk', input: { name: 'Renamed on time' } });
    const rows = await outboxAfter(seq);
    expect(summary(rows)).toEqual([
      [TOPICS.channels, 'clk-shop', 'channel.updated'],
      [TOPICS.teams, 'clk', 'team.updated'],
      [TOPICS.channels, 'clk-shop', 'channel.updated'],
      [TOPICS.teams, 'clk', 'team.updated'],
    ]);
    const at = rows.map((r) => Date.parse(r.envelope.occurredAt));
    // Consumers keep the newest occurredAt: the later change of each must not read older.
    expect(at[2]!).toBeGreaterThanOrEqual(at[0]!);
    expect(at[3]!).toBeGreaterThanOrEqual(at[1]!);
  });

  it('a refused change writes no event', async () => {
    await h.ok(operator, CREATE_TEAM, { input: { code: 'refused', name: 'x' } });
    const seq = await lastSeq();
    await h.problem(operator, CREATE_TEAM, { input: { code: 'refused', name: 'again' } });
    await h.problem(backOffice('refused'), CREATE_CHANNEL, { input: { code: 'standard', name: 'x' } });
    await h.problem(backOffice('refused'), ISSUE_TOKEN, { channelId: 'refused-standard' });
    await h.problem(backOffice('other'), UPDATE_TEAM, { code: 'refused', input: { name: 'x' } });
    expect(await outboxAfter(seq)).toEqual([]);
  });

  it('when the event cannot be written, the change is not made either', async () => {
    await teamWithChannel(h, 'atomic');
    // Make the outbox refuse exactly the events of this test: the state change must roll back with it.
    await h.pool.query(
      `ALTER TABLE accounts.outbox_event ADD CONSTRAINT refuse_atomic CHECK (event_key NOT LIKE 'atomic%') NOT VALID`,
    );
    try {
      const res = await h.gql(backOffice('atomic'), UPDATE_TEAM, { code: 'atomic', input: { name: 'Changed' } });
      expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      const issued = await h.gql(backOffice('atomic'), ISSUE_TOKEN, { channelId: 'atomic-shop' });
      expect(issued.errors).toHaveLength(1);
      const created = await h.gql(operator, CREATE_TEAM, { input: { code: 'atomic2', name: 'x' } });
      expect(created.errors).toHaveLength(1);
    } finally {
      await h.pool.query('ALTER TABLE accounts.outbox_event DROP CONSTRAINT refuse_atomic');
    }
    const { rows } = await h.pool.query(
      `SELECT (SELECT name FROM accounts.team WHERE code = 'atomic') AS name,
              (SELECT count(*)::int FROM accounts.api_token WHERE channel_id = 'atomic-shop') AS tokens,
              (SELECT count(*)::int FROM accounts.team WHERE code = 'atomic2') AS teams,
              (SELECT count(*)::int FROM accounts.channel WHERE team_code = 'atomic2') AS channels`,
    );
    expect(rows[0]).toEqual({ name: 'Team atomic', tokens: 0, teams: 0, channels: 0 });
  });
});

describe('accounts events: relayed to a real Kafka broker', () => {
  const logger = createLogger('accounts-events-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const prefix = `t${uniqueSuffix()}.`;
  const busOptions = { brokers: testInfra.kafkaBrokers, topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } };
  let h: AccountsHarness;
  let consumerBus: KafkaEventBus;

  beforeAll(async () => {
    h = await startAccounts({ bus: new KafkaEventBus({ ...busOptions, clientId: 'accounts-test' }), startBackgroundWork: true });
    consumerBus = new KafkaEventBus({ ...busOptions, clientId: 'accounts-test-consumer' });
  }, 60_000);

  afterAll(async () => {
    await consumerBus?.close();
    await h?.close();
    const admin = new Kafka({ brokers: testInfra.kafkaBrokers, clientId: 'accounts-test-cleanup', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => undefined);
    await admin.disconnect();
  });

  it('team, channel and token events reach a consumer, keyed by aggregate', async () => {
    const seen: { topic: string; event: EventEnvelope }[] = [];
    const sub = await consumerBus.subscribe({
      groupId: 'accounts-events-test',
      topics: [TOPICS.teams, TOPICS.channels, TOPICS.apiTokens],
      handler: async (event, meta) => {
        seen.push({ topic: meta.topic, event });
      },
    });
    try {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'kafka', name: 'Kafka team' } });
      await h.ok(backOffice('kafka'), CREATE_CHANNEL, { input: { code: 'shop', name: 'Shop' } });
      const token = await issueToken(h, 'kafka-shop');

      const events = await eventually(() => (seen.length >= 4 ? seen : undefined), 30_000);
      const byType = (type: string) => events.filter((e) => e.event.type === type);
      expect(byType('team.created')).toEqual([
        { topic: TOPICS.teams, event: expect.objectContaining({ aggregateId: 'kafka', payload: { teamCode: 'kafka', name: 'Kafka team', active: true } }) },
      ]);
      expect(byType('channel.created').map((e) => e.event.aggregateId).sort()).toEqual(['kafka-shop', 'kafka-standard']);
      expect(byType('api-token.issued')).toEqual([
        {
          topic: TOPICS.apiTokens,
          event: expect.objectContaining({
            aggregateId: 'kafka-shop',
            payload: { tokenId: token.id, channelId: 'kafka-shop', teamCode: 'kafka', revokedTokenId: null },
          }),
        },
      ]);
      // The relay marked what it published.
      await eventually(async () => {
        const r = await h.pool.query('SELECT count(*)::int AS pending FROM accounts.outbox_event WHERE published_at IS NULL');
        return r.rows[0].pending === 0 ? true : undefined;
      });
    } finally {
      await sub.stop();
    }
  }, 60_000);
});
