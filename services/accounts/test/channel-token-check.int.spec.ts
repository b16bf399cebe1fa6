import { randomUUID } from 'node:crypto';
import { hashApiToken } from '../src';
import {
  backOffice,
  CREATE_CHANNEL,
  CREATE_TEAM,
  edge,
  issueToken,
  operator,
  REVOKE_TOKEN,
  startAccounts,
  teamWithChannel,
  TOKEN_CHECK,
  UPDATE_CHANNEL,
  UPDATE_TEAM,
  type AccountsHarness,
} from './harness';

/**
 * channelTokenCheck gives the REST edge the facts for the contract's check order (section 5
 * point 7): channel exists (401), token valid for the channel's team (401), token's own channel
 * is the path channel (404), channel active (403 channel-inactive), not the Standard channel's
 * token (403); team state afterwards.
 */
describe('channelTokenCheck', () => {
  let h: AccountsHarness;
  let shopToken: { token: string; id: string };
  let webToken: { token: string; id: string };
  let otherTeamToken: { token: string; id: string };
  let legacyStandardToken: string;

  async function check(channelId: string, token: string) {
    const { channelTokenCheck } = await h.ok(edge, TOKEN_CHECK, { channelId, tokenSha256: hashApiToken(token) });
    return channelTokenCheck;
  }

  beforeAll(async () => {
    h = await startAccounts();
    await teamWithChannel(h, 'acme', 'shop');
    await h.ok(backOffice('acme'), CREATE_CHANNEL, { input: { code: 'web', name: 'Web' } });
    shopToken = await issueToken(h, 'acme-shop');
    webToken = await issueToken(h, 'acme-web');
    await teamWithChannel(h, 'other', 'shop');
    otherTeamToken = await issueToken(h, 'other-shop');
    // A token stored for a Standard channel before the contract refused them (old data migrated in).
    legacyStandardToken = 'pft_legacy-token-from-before-1-2-0-aaaaaaaaaaaaaaaa';
    await h.pool.query(`INSERT INTO accounts.api_token (id, channel_id, token_sha256, prefix) VALUES ($1, 'acme-standard', $2, 'pft_lega')`, [
      randomUUID(),
      hashApiToken(legacyStandardToken),
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('own token on its own active channel: every fact in order', async () => {
    const facts = await check('acme-shop', shopToken.token);
    expect(facts).toEqual({
      channelExists: true,
      teamActive: true,
      channel: { id: 'acme-shop', teamCode: 'acme', active: true, standard: false },
      token: {
        id: shopToken.id,
        channelId: 'acme-shop',
        teamCode: 'acme',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        channelActive: true,
        channelStandard: false,
      },
    });
  });

  it('unknown channel: nothing else is looked at', async () => {
    expect(await check('acme-nosuch', shopToken.token)).toEqual({ channelExists: false, channel: null, token: null, teamActive: false });
    expect(await check('nonsense', shopToken.token)).toEqual({ channelExists: false, channel: null, token: null, teamActive: false });
  });

  it('wrong token: the channel exists, no token', async () => {
    const facts = await check('acme-shop', 'pft_not-a-real-token');
    expect(facts).toMatchObject({ channelExists: true, token: null, channel: { id: 'acme-shop' } });
  });

  it('a sibling channel’s token: the token and its own channel, which differ from the path (404)', async () => {
    const facts = await check('acme-shop', webToken.token);
    expect(facts.channel.id).toBe('acme-shop');
    expect(facts.token).toMatchObject({ id: webToken.id, channelId: 'acme-web', teamCode: 'acme' });
  });

  it('another team’s token is no token at all (401, not 404)', async () => {
    expect((await check('acme-shop', otherTeamToken.token)).token).toBeNull();
  });

  it('a revoked token is no token', async () => {
    await teamWithChannel(h, 'rev', 'shop');
    const first = await issueToken(h, 'rev-shop');
    const second = await issueToken(h, 'rev-shop');
    expect((await check('rev-shop', first.token)).token).toBeNull();
    expect((await check('rev-shop', second.token)).token?.id).toBe(second.id);
    await h.ok(backOffice('rev'), REVOKE_TOKEN, { channelId: 'rev-shop' });
    expect((await check('rev-shop', second.token)).token).toBeNull();
  });

  it('an inactive channel: its token still resolves, with the channel marked inactive (403)', async () => {
    await teamWithChannel(h, 'inact', 'shop');
    await h.ok(backOffice('inact'), CREATE_CHANNEL, { input: { code: 'web', name: 'Web' } });
    const own = await issueToken(h, 'inact-shop');
    const sibling = await issueToken(h, 'inact-web');
    await h.ok(backOffice('inact'), UPDATE_CHANNEL, { id: 'inact-shop', input: { active: false } });
    const facts = await check('inact-shop', own.token);
    expect(facts.channel).toMatchObject({ active: false });
    expect(facts.token).toMatchObject({ channelId: 'inact-shop', channelActive: false });
    // A sibling's token on the inactive channel: the token's channel differs (404 comes before 403).
    const viaSibling = await check('inact-shop', sibling.token);
    expect(viaSibling.token).toMatchObject({ channelId: 'inact-web', channelActive: true });
  });

  it('a Standard channel’s legacy token is marked as such (403)', async () => {
    const facts = await check('acme-standard', legacyStandardToken);
    expect(facts.channel).toMatchObject({ id: 'acme-standard', standard: true });
    expect(facts.token).toMatchObject({ channelId: 'acme-standard', channelStandard: true });
    // The same token on another channel of the team: its own channel differs (404).
    expect((await check('acme-shop', legacyStandardToken)).token).toMatchObject({ channelId: 'acme-standard' });
  });

  it('reports the team’s state', async () => {
    await teamWithChannel(h, 'sleepy', 'shop');
    const token = await issueToken(h, 'sleepy-shop');
    await h.ok(operator, UPDATE_TEAM, { code: 'sleepy', input: { active: false } });
    expect(await check('sleepy-shop', token.token)).toMatchObject({ teamActive: false, token: { id: token.id } });
  });

  it('a malformed hash is no token, not an error', async () => {
    const { channelTokenCheck } = await h.ok(edge, TOKEN_CHECK, { channelId: 'acme-shop', tokenSha256: "x' OR '1'='1" });
    expect(channelTokenCheck).toMatchObject({ channelExists: true, token: null });
  });

  it('answers only service identities', async () => {
    const problem = await h.problem(backOffice('acme'), TOKEN_CHECK, { channelId: 'acme-shop', tokenSha256: hashApiToken(shopToken.token) });
    expect(problem.problemType).toBe('forbidden');
  });

  it('a new team’s Standard channel has no token', async () => {
    await h.ok(operator, CREATE_TEAM, { input: { code: 'fresh', name: 'Fresh' } });
    expect(await check('fresh-standard', shopToken.token)).toMatchObject({ channelExists: true, token: null, teamActive: true });
  });
});
