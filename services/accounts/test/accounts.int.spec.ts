import { createHash } from 'node:crypto';
import {
  backOffice,
  channelIdentity,
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

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('accounts subgraph over HTTP', () => {
  let h: AccountsHarness;

  beforeAll(async () => {
    h = await startAccounts();
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('teams', () => {
    it('creates a team with its Standard channel in the same step', async () => {
      const { createTeam } = await h.ok(operator, CREATE_TEAM, { input: { code: 'acme', name: '  Acme Prints ' } });
      expect(createTeam).toMatchObject({ code: 'acme', name: 'Acme Prints', active: true });
      expect(new Date(createTeam.createdAt).toISOString()).toBe(createTeam.createdAt);
      expect(createTeam.channels).toEqual([
        { id: 'acme-standard', code: 'standard', name: 'Standard', standard: true, active: true, apiToken: null },
      ]);
      const { rows } = await h.pool.query('SELECT id, standard FROM accounts.channel WHERE team_code = $1', ['acme']);
      expect(rows).toEqual([{ id: 'acme-standard', standard: true }]);
    });

    it('refuses an invalid code or blank name with violations naming the fields', async () => {
      const problem = await h.problem(operator, CREATE_TEAM, { input: { code: 'Ac-me', name: ' ' } });
      expect(problem.problemType).toBe('validation-failed');
      expect(problem.violations?.map((v) => v.property)).toEqual(['input.code', 'input.name']);
    });

    it('refuses a duplicate code as a conflict', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'dupe', name: 'One' } });
      const problem = await h.problem(operator, CREATE_TEAM, { input: { code: 'dupe', name: 'Two' } });
      expect(problem.problemType).toBe('conflict');
    });

    it('lets only operators create teams', async () => {
      expect((await h.problem(backOffice('acme'), CREATE_TEAM, { input: { code: 'bo', name: 'x' } })).problemType).toBe('forbidden');
      expect((await h.problem(channelIdentity('acme', 'acme-x'), CREATE_TEAM, { input: { code: 'ch', name: 'x' } })).problemType).toBe(
        'forbidden',
      );
    });

    it('refuses calls without a valid identity token', async () => {
      const res = await h.gql(null, '{ team { code } }');
      expect(res.errors?.[0]?.extensions?.problem?.problemType).toBe('unauthenticated');
    });

    it('lets the back-office rename its team but only operators (de)activate it', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'rename', name: 'Old' } });
      const { updateTeam } = await h.ok(backOffice('rename'), UPDATE_TEAM, { code: 'rename', input: { name: 'New' } });
      expect(updateTeam).toEqual({ code: 'rename', name: 'New', active: true });
      const refused = await h.problem(backOffice('rename'), UPDATE_TEAM, { code: 'rename', input: { active: false } });
      expect(refused.problemType).toBe('forbidden');
      const byOperator = await h.ok(operator, UPDATE_TEAM, { code: 'rename', input: { active: false } });
      expect(byOperator.updateTeam.active).toBe(false);
    });
  });

  describe('channels', () => {
    it('adds a channel to the back-office user’s own team', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'chan', name: 'Chan' } });
      const { createChannel } = await h.ok(backOffice('chan'), CREATE_CHANNEL, { input: { code: 'eu-web', name: 'EU web' } });
      expect(createChannel).toMatchObject({ id: 'chan-eu-web', code: 'eu-web', teamCode: 'chan', active: true, standard: false, apiToken: null });
      const { channels } = await h.ok(backOffice('chan'), '{ channels { id standard } }');
      expect(channels).toEqual([
        { id: 'chan-standard', standard: true },
        { id: 'chan-eu-web', standard: false },
      ]);
    });

    it('lets operators add a channel to a team they name', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'opchan', name: 'x' } });
      const { createChannel } = await h.ok(operator, CREATE_CHANNEL, { input: { teamCode: 'opchan', code: 'api', name: 'API' } });
      expect(createChannel.id).toBe('opchan-api');
      const missing = await h.problem(operator, CREATE_CHANNEL, { input: { code: 'api', name: 'API' } });
      expect(missing.violations?.map((v) => v.property)).toEqual(['input.teamCode']);
      expect((await h.problem(operator, CREATE_CHANNEL, { input: { teamCode: 'nosuch', code: 'api', name: 'x' } })).problemType).toBe(
        'not-found',
      );
    });

    it('refuses invalid and duplicate channel codes, including "standard"', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'codes', name: 'x' } });
      const invalid = await h.problem(backOffice('codes'), CREATE_CHANNEL, { input: { code: 'Web_Shop', name: 'x' } });
      expect(invalid).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'input.code' }] });
      expect((await h.problem(backOffice('codes'), CREATE_CHANNEL, { input: { code: 'standard', name: 'x' } })).problemType).toBe(
        'conflict',
      );
    });

    it('renames and deactivates a channel', async () => {
      const id = await teamWithChannel(h, 'deact');
      const { updateChannel } = await h.ok(backOffice('deact'), UPDATE_CHANNEL, { id, input: { name: 'Renamed', active: false } });
      expect(updateChannel).toEqual({ id, name: 'Renamed', active: false });
    });
  });

  describe('API tokens', () => {
    it('shows a new token once and stores only its SHA-256', async () => {
      const channelId = await teamWithChannel(h, 'tok');
      const { issueApiToken } = await h.ok(backOffice('tok'), ISSUE_TOKEN, { channelId });
      const token: string = issueApiToken.token;
      expect(token).toMatch(/^pft_[A-Za-z0-9_-]{43}$/);
      expect(issueApiToken).toMatchObject({ revokedTokenId: null, apiToken: { channelId, prefix: token.slice(0, 8) } });

      const { rows } = await h.pool.query('SELECT * FROM accounts.api_token WHERE channel_id = $1', [channelId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].token_sha256).toBe(sha256(token));
      // The token appears nowhere in the database: not in the token table, not in any event.
      const dump = await h.pool.query(
        `SELECT (SELECT json_agg(t)::text FROM accounts.api_token t) || (SELECT json_agg(o)::text FROM accounts.outbox_event o) AS all`,
      );
      expect(dump.rows[0].all).not.toContain(token.slice(4));

      // Reading the channel shows the token's public facts, never the token.
      const { channel } = await h.ok(backOffice('tok'), '{ channel(id: "tok-shop") { apiToken { id prefix channelId } } }');
      expect(channel.apiToken).toEqual({ id: issueApiToken.apiToken.id, prefix: token.slice(0, 8), channelId });
      const res = await h.gql(backOffice('tok'), '{ channel(id: "tok-shop") { apiToken { token } } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('revokes the previous token when issuing a new one', async () => {
      const channelId = await teamWithChannel(h, 'reissue');
      const first = await issueToken(h, channelId);
      const { issueApiToken: second } = await h.ok(backOffice('reissue'), ISSUE_TOKEN, { channelId });
      expect(second.revokedTokenId).toBe(first.id);
      const { rows } = await h.pool.query(
        'SELECT id, revoked_at IS NOT NULL AS revoked FROM accounts.api_token WHERE channel_id = $1 ORDER BY created_at, revoked_at NULLS LAST',
        [channelId],
      );
      expect(rows).toEqual([
        { id: first.id, revoked: true },
        { id: second.apiToken.id, revoked: false },
      ]);
    });

    it('revokes a token outright', async () => {
      const channelId = await teamWithChannel(h, 'revoke');
      await issueToken(h, channelId);
      expect((await h.ok(backOffice('revoke'), REVOKE_TOKEN, { channelId })).revokeApiToken).toBe(true);
      expect((await h.ok(backOffice('revoke'), REVOKE_TOKEN, { channelId })).revokeApiToken).toBe(false);
      const { rows } = await h.pool.query('SELECT count(*)::int AS live FROM accounts.api_token WHERE channel_id = $1 AND revoked_at IS NULL', [
        channelId,
      ]);
      expect(rows[0].live).toBe(0);
      const { channel } = await h.ok(backOffice('revoke'), `{ channel(id: "${channelId}") { apiToken { id } } }`);
      expect(channel.apiToken).toBeNull();
    });

    it('refuses to give the Standard channel a token (validation-failed on channelId)', async () => {
      await h.ok(operator, CREATE_TEAM, { input: { code: 'std', name: 'x' } });
      const problem = await h.problem(backOffice('std'), ISSUE_TOKEN, { channelId: 'std-standard' });
      expect(problem).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'channelId' }] });
      const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM accounts.api_token');
      const before = rows[0].n;
      await h.problem(operator, ISSUE_TOKEN, { channelId: 'std-standard' });
      expect((await h.pool.query('SELECT count(*)::int AS n FROM accounts.api_token')).rows[0].n).toBe(before);
    });

    it('leaves exactly one live token when issues race', async () => {
      const channelId = await teamWithChannel(h, 'race');
      const results = await Promise.all(
        Array.from({ length: 6 }, () => h.gql(backOffice('race'), ISSUE_TOKEN, { channelId })),
      );
      expect(results.every((r) => !r.errors)).toBe(true);
      const { rows } = await h.pool.query(
        'SELECT id FROM accounts.api_token WHERE channel_id = $1 AND revoked_at IS NULL',
        [channelId],
      );
      expect(rows).toHaveLength(1);
      // Each issue revoked exactly the token before it: a chain, nothing lost or doubled.
      const revoked = results.map((r) => r.data!.issueApiToken.revokedTokenId).filter(Boolean);
      expect(new Set(revoked).size).toBe(5);
      const issued = results.map((r) => r.data!.issueApiToken.apiToken.id);
      expect(issued).toContain(rows[0].id);
    });

    it('backs the one-live-token rule with the database itself', async () => {
      const channelId = await teamWithChannel(h, 'index');
      await issueToken(h, channelId);
      await expect(
        h.pool.query(
          `INSERT INTO accounts.api_token (id, channel_id, token_sha256, prefix) VALUES (gen_random_uuid(), $1, $2, 'pft_x')`,
          [channelId, sha256('another')],
        ),
      ).rejects.toThrow(/api_token_one_live_per_channel/);
      await expect(
        h.pool.query(`INSERT INTO accounts.channel (id, team_code, code, name, standard) VALUES ('index-std2', 'index', 'std2', 'x', true)`),
      ).rejects.toThrow(/channel_one_standard_per_team/);
    });
  });

  describe('visibility', () => {
    let acmeShop: string;
    beforeAll(async () => {
      acmeShop = await teamWithChannel(h, 'vacme');
      await h.ok(backOffice('vacme'), CREATE_CHANNEL, { input: { code: 'web', name: 'Web' } });
      await teamWithChannel(h, 'vother');
      await issueToken(h, 'vother-shop');
    });

    it('a back-office user sees nothing of another team', async () => {
      const bo = backOffice('vacme');
      expect((await h.ok(bo, '{ team(code: "vother") { code } }')).team).toBeNull();
      expect((await h.ok(bo, '{ channel(id: "vother-shop") { id } }')).channel).toBeNull();
      expect((await h.ok(bo, '{ channels(teamCode: "vother") { id } }')).channels).toEqual([]);
      expect((await h.ok(bo, '{ team { code channels { id } } }')).team).toEqual({
        code: 'vacme',
        channels: [{ id: 'vacme-standard' }, { id: 'vacme-shop' }, { id: 'vacme-web' }],
      });
    });

    it('a back-office user cannot change another team: not-found, exactly as for a missing one', async () => {
      const bo = backOffice('vacme');
      const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
        [UPDATE_TEAM, { code: 'vother', input: { name: 'Hijacked' } }, { code: 'nosuch', input: { name: 'Hijacked' } }],
        [UPDATE_CHANNEL, { id: 'vother-shop', input: { active: false } }, { id: 'nosuch-shop', input: { active: false } }],
        [ISSUE_TOKEN, { channelId: 'vother-shop' }, { channelId: 'nosuch-shop' }],
        [REVOKE_TOKEN, { channelId: 'vother-shop' }, { channelId: 'nosuch-shop' }],
        [CREATE_CHANNEL, { input: { teamCode: 'vother', code: 'evil', name: 'x' } }, { input: { teamCode: 'nosuch', code: 'evil', name: 'x' } }],
      ];
      for (const [mutation, other, missing] of cases) {
        const a = await h.problem(bo, mutation, other);
        const b = await h.problem(bo, mutation, missing);
        expect(a.problemType).toBe('not-found');
        expect(a.detail.replace('vother', 'nosuch')).toBe(b.detail);
      }
      const { rows } = await h.pool.query(
        `SELECT t.name, c.active, (SELECT count(*)::int FROM accounts.api_token WHERE channel_id = c.id AND revoked_at IS NULL) AS live
           FROM accounts.team t JOIN accounts.channel c ON c.team_code = t.code WHERE c.id = 'vother-shop'`,
      );
      expect(rows).toEqual([{ name: 'Team vother', active: true, live: 1 }]);
    });

    it('a channel identity reads only its own team and its own channel, and changes nothing', async () => {
      const me = channelIdentity('vacme', acmeShop);
      const data = await h.ok(
        me,
        `{ team { code channels { id } }
           own: channel(id: "${acmeShop}") { id }
           sibling: channel(id: "vacme-web") { id }
           standard: channel(id: "vacme-standard") { id }
           foreign: channel(id: "vother-shop") { id }
           channels { id }
           otherTeam: team(code: "vother") { code }
           otherChannels: channels(teamCode: "vother") { id } }`,
      );
      expect(data).toEqual({
        team: { code: 'vacme', channels: [{ id: acmeShop }] },
        own: { id: acmeShop },
        sibling: null,
        standard: null,
        foreign: null,
        channels: [{ id: acmeShop }],
        otherTeam: null,
        otherChannels: [],
      });
      expect((await h.problem(me, ISSUE_TOKEN, { channelId: acmeShop })).problemType).toBe('forbidden');
      expect((await h.problem(me, UPDATE_CHANNEL, { id: acmeShop, input: { name: 'x' } })).problemType).toBe('forbidden');
      expect((await h.problem(me, UPDATE_TEAM, { code: 'vacme', input: { name: 'x' } })).problemType).toBe('forbidden');
      expect((await h.problem(me, CREATE_CHANNEL, { input: { code: 'more', name: 'x' } })).problemType).toBe('forbidden');
    });

    it('federated entity lookups apply the same visibility', async () => {
      const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Team { code } ... on Channel { id } } }`;
      const representations = [
        { __typename: 'Team', code: 'vacme' },
        { __typename: 'Team', code: 'vother' },
        { __typename: 'Channel', id: acmeShop },
        { __typename: 'Channel', id: 'vacme-web' },
        { __typename: 'Channel', id: 'vother-shop' },
      ];
      const { _entities } = await h.ok(channelIdentity('vacme', acmeShop), query, { r: representations });
      expect(_entities).toEqual([{ code: 'vacme' }, null, { id: acmeShop }, null, null]);
    });
  });
});
