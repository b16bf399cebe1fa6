import { uniqueSuffix } from '@pf/platform/testing/infra';
import type { Identity } from '@pf/platform/identity';
import { ChannelUpdated } from '@pf/platform/events/accounts';
import { v4, WebhooksHarness } from './support/harness';

const REGISTER = 'mutation($url: String!, $channelId: ID) { registerWebhook(url: $url, channelId: $channelId) { channelId url secret } }';
const ROTATE = 'mutation($channelId: ID) { rotateWebhookSecret(channelId: $channelId) { channelId url secret } }';

describe('webhook registration (POST /webhooks, rule W1; POST /webhooks/secret/rotate)', () => {
  let h: WebhooksHarness;
  const team = `r${uniqueSuffix()}`;
  let channelId: string;
  let identity: Identity;

  beforeAll(async () => {
    h = await WebhooksHarness.start();
    h.dns.set('hooks.example.com', [v4('93.184.216.34')]);
    h.dns.set('private.example.com', [v4('10.0.0.8')]);
    channelId = await h.seedChannel(team, 'shop');
    identity = { kind: 'channel', teamCode: team, channelId };
  }, 30_000);
  afterAll(() => h?.stop(), 30_000);

  const problemOf = (res: Awaited<ReturnType<WebhooksHarness['graphql']>>) => res.errors?.[0]?.extensions?.problem;

  it('registers a valid URL and answers the secret; registering again replaces the URL and answers the same secret', async () => {
    const first = await h.graphql<{ registerWebhook: { url: string; secret: string } }>(identity, REGISTER, { url: 'https://Hooks.Example.com./in/{notificationType}' });
    expect(first.errors).toBeUndefined();
    expect(first.data!.registerWebhook.url).toBe('https://Hooks.Example.com./in/{notificationType}');
    expect(first.data!.registerWebhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const again = await h.graphql<{ registerWebhook: { url: string; secret: string } }>(identity, REGISTER, { url: 'https://hooks.example.com/other' });
    expect(again.data!.registerWebhook).toEqual({ channelId, url: 'https://hooks.example.com/other', secret: first.data!.registerWebhook.secret });
    // The secret is stored sealed, never in clear.
    const { rows } = await h.sql.query<{ secret_sealed: string; secret_key_id: string }>('SELECT secret_sealed, secret_key_id FROM endpoint WHERE channel_id = $1', [channelId]);
    expect(rows[0]!.secret_sealed).not.toContain(first.data!.registerWebhook.secret);
    expect(rows[0]!.secret_key_id).toBe('k1');
  });

  it.each([
    ['http://hooks.example.com/', 'not-https'],
    ['https://localhost/', 'localhost'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://private.example.com/', 'resolves to a private address'],
    ['https://nowhere.example.com/', 'does not resolve'],
  ])('refuses %s with 422 naming url, and stores nothing', async (url, why) => {
    const before = await h.sql.query('SELECT url FROM endpoint WHERE channel_id = $1', [channelId]);
    const res = await h.graphql(identity, REGISTER, { url });
    const problem = problemOf(res);
    expect(problem?.problemType).toBe('validation-failed');
    expect(problem?.violations?.[0]?.property).toBe('url');
    if (why !== 'not-https') expect(res.errors?.[0]?.message).toContain(why);
    expect((await h.sql.query('SELECT url FROM endpoint WHERE channel_id = $1', [channelId])).rows).toEqual(before.rows);
  });

  it('checks the URL before the team: an inactive team gets 422 for an invalid URL and 403 only for a valid one', async () => {
    const other = `i${uniqueSuffix()}`;
    const id = await h.seedChannel(other, 'shop', { teamActive: false });
    const who: Identity = { kind: 'channel', teamCode: other, channelId: id };
    expect(problemOf(await h.graphql(who, REGISTER, { url: 'https://localhost/' }))?.problemType).toBe('validation-failed');
    expect(problemOf(await h.graphql(who, REGISTER, { url: 'https://hooks.example.com/' }))?.problemType).toBe('team-inactive');
    expect((await h.sql.query('SELECT 1 FROM endpoint WHERE channel_id = $1', [id])).rowCount).toBe(0);
    await h.setTeamActive(other, true);
    const registered = await h.graphql(who, REGISTER, { url: 'https://hooks.example.com/' });
    expect(registered.errors).toBeUndefined();
    expect((await h.sql.query('SELECT url FROM endpoint WHERE channel_id = $1', [id])).rows).toEqual([{ url: 'https://hooks.example.com/' }]);
  });

  it('keeps a channel in its team: a channel event naming another team changes nothing', async () => {
    const other = `m${uniqueSuffix()}`;
    const id = await h.seedChannel(other, 'shop');
    await h.publish(ChannelUpdated, id, { channelId: id, teamCode: 'intruder', channelCode: 'shop', name: 'shop', active: false, standard: false });
    // A channel created after it, on the same topic (one partition): once it is there, the event before was applied.
    await h.seedChannel(other, 'marker');
    expect((await h.sql.query('SELECT team_code, active FROM channel WHERE channel_id = $1', [id])).rows).toEqual([{ team_code: other, active: true }]);
  });

  it('refuses the Standard channel with 403 (after the URL check)', async () => {
    const other = `s${uniqueSuffix()}`;
    const id = await h.seedChannel(other, 'standard', { standard: true });
    const backoffice: Identity = { kind: 'backoffice', teamCode: other, userId: 'u' };
    expect(problemOf(await h.graphql(backoffice, REGISTER, { url: 'ftp://x', channelId: id }))?.problemType).toBe('validation-failed');
    expect(problemOf(await h.graphql(backoffice, REGISTER, { url: 'https://hooks.example.com/', channelId: id }))?.problemType).toBe('standard-channel');
  });

  it('rotation gives a new secret that registering then returns; the old one is gone', async () => {
    const registered = await h.graphql<{ registerWebhook: { secret: string } }>(identity, REGISTER, { url: 'https://hooks.example.com/in' });
    const old = registered.data!.registerWebhook.secret;
    const rotated = await h.graphql<{ rotateWebhookSecret: { secret: string; url: string } }>(identity, ROTATE);
    expect(rotated.data!.rotateWebhookSecret.secret).not.toBe(old);
    expect(rotated.data!.rotateWebhookSecret.url).toBe('https://hooks.example.com/in');
    const again = await h.graphql<{ registerWebhook: { secret: string } }>(identity, REGISTER, { url: 'https://hooks.example.com/in' });
    expect(again.data!.registerWebhook.secret).toBe(rotated.data!.rotateWebhookSecret.secret);
    const version = await h.sql.query<{ secret_version: number }>('SELECT secret_version FROM endpoint WHERE channel_id = $1', [channelId]);
    expect(version.rows[0]!.secret_version).toBeGreaterThanOrEqual(2);
  });

  it('concurrent first registrations agree on one secret', async () => {
    const other = `c${uniqueSuffix()}`;
    const id = await h.seedChannel(other, 'shop');
    const who: Identity = { kind: 'channel', teamCode: other, channelId: id };
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.graphql<{ registerWebhook: { secret: string } }>(who, REGISTER, { url: 'https://hooks.example.com/' })));
    expect(new Set(answers.map((a) => a.data!.registerWebhook.secret)).size).toBe(1);
  });

  it('the back-office regenerates a channel secret of its own team, sees the registration without the secret, and nothing of other teams', async () => {
    const backoffice: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };
    const regenerated = await h.graphql<{ rotateWebhookSecret: { secret: string } }>(backoffice, ROTATE, { channelId });
    expect(regenerated.data!.rotateWebhookSecret.secret).toMatch(/^whsec_/);
    const view = await h.graphql<{ channelWebhook: Record<string, unknown> }>(backoffice, '{ channelWebhook(channelId: "' + channelId + '") { channelId url secretVersion registeredAt } }');
    expect(view.data!.channelWebhook).toMatchObject({ channelId, url: 'https://hooks.example.com/in' });
    const stranger: Identity = { kind: 'backoffice', teamCode: 'someoneelse', userId: 'x' };
    expect(problemOf(await h.graphql(stranger, ROTATE, { channelId }))?.problemType).toBe('not-found');
    // An integration cannot act on a sibling channel.
    expect(problemOf(await h.graphql(identity, ROTATE, { channelId: `${team}-other` }))?.problemType).toBe('not-found');
  });

  it('the back-office cannot register or rotate for a channel of its team that accounts never announced (it would be sent the stock webhooks)', async () => {
    const backoffice: Identity = { kind: 'backoffice', teamCode: team, userId: 'merchant' };
    for (const unknown of [`${team}-nope`, `${channelId} `]) {
      expect(problemOf(await h.graphql(backoffice, REGISTER, { url: 'https://hooks.example.com/', channelId: unknown }))?.problemType).toBe('not-found');
      expect(problemOf(await h.graphql(backoffice, ROTATE, { channelId: unknown }))?.problemType).toBe('not-found');
      const view = await h.graphql<{ channelWebhook: unknown }>(backoffice, 'query($c: ID!) { channelWebhook(channelId: $c) { url } }', { c: unknown });
      expect(view.data?.channelWebhook ?? null).toBeNull();
    }
  });
});
