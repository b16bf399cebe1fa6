import { randomBytes } from 'node:crypto';
import { createLogger } from '@pf/platform/logging';
import { uniqueSuffix } from '@pf/platform/testing/infra';
import type { Identity } from '@pf/platform/identity';
import { SecretBox } from '../src/domain/secrets';
import { replaceSealedSecret } from '../src/repositories/endpoints';
import { resealSecrets } from '../src/use-cases/reseal-secrets';
import { v4, WebhooksHarness } from './support/harness';

const REGISTER = 'mutation($url: String!) { registerWebhook(url: $url) { channelId url secret } }';

/** Key rotation at rest (docs/webhooks.md): a new current key, the old one kept, every secret sealed again, the old key dropped. */
describe('webhook secrets sealed again with a new key (reseal-secrets)', () => {
  const k1 = { id: 'k1', key: randomBytes(32) };
  const k2 = { id: 'k2', key: randomBytes(32) };
  const keyEnv = (current: typeof k1, previous: (typeof k1)[] = []) => ({
    WEBHOOK_SECRET_KEY: current.key.toString('base64'),
    WEBHOOK_SECRET_KEY_ID: current.id,
    WEBHOOK_SECRET_PREVIOUS_KEYS: previous.map((k) => `${k.id}:${k.key.toString('base64')}`).join(','),
  });
  const logger = createLogger('reseal-test', 'silent');
  const team = `s${uniqueSuffix()}`;
  let h: WebhooksHarness;

  afterAll(() => h?.stop(), 30_000);

  const register = async (channelId: string) => {
    const identity: Identity = { kind: 'channel', teamCode: team, channelId };
    const res = await h.graphql<{ registerWebhook: { secret: string } }>(identity, REGISTER, { url: 'https://hooks.example.com/in' });
    expect(res.errors).toBeUndefined();
    return res.data!.registerWebhook.secret;
  };
  const keyIds = async () => (await h.sql.query<{ secret_key_id: string }>('SELECT secret_key_id FROM endpoint WHERE team_code = $1 ORDER BY channel_id', [team])).rows.map((r) => r.secret_key_id);

  it('seals every secret again with the current key; the secrets stay the same and open without the old key', async () => {
    h = await WebhooksHarness.start({ env: keyEnv(k1) });
    h.dns.set('hooks.example.com', [v4('93.184.216.34')]);
    const channels = [await h.seedChannel(team, 'one'), await h.seedChannel(team, 'two'), await h.seedChannel(team, 'three')];
    const secrets = [];
    for (const c of channels) secrets.push(await register(c));
    expect(await keyIds()).toEqual(['k1', 'k1', 'k1']);

    // The new key goes out with the old one kept as previous; then the re-seal, in pages of 2.
    h = await h.restart({ env: keyEnv(k2, [k1]) });
    const box = new SecretBox(k2, [k1]);
    expect(await resealSecrets(h.sql, box, logger, 2)).toEqual({ resealed: 3, changedMeanwhile: 0, unopenable: [] });
    expect(await keyIds()).toEqual(['k2', 'k2', 'k2']);
    expect(await resealSecrets(h.sql, box, logger, 2)).toEqual({ resealed: 0, changedMeanwhile: 0, unopenable: [] });

    // The old key dropped: every secret still opens, unchanged (registering again answers it).
    h = await h.restart({ env: keyEnv(k2) });
    h.dns.set('hooks.example.com', [v4('93.184.216.34')]);
    for (const [i, c] of channels.entries()) expect(await register(c)).toBe(secrets[i]);
  }, 60_000);

  it('leaves a secret no key opens, and names it; a row changed meanwhile keeps its change', async () => {
    const lost = await h.seedChannel(team, 'lost');
    const sealedWithK0 = new SecretBox({ id: 'k0', key: randomBytes(32) }).seal('whsec_x', lost);
    await h.sql.query('INSERT INTO endpoint (channel_id, team_code, channel_code, url, secret_sealed, secret_key_id) VALUES ($1, $2, $3, NULL, $4, $5)', [
      lost,
      team,
      'lost',
      sealedWithK0.sealed,
      sealedWithK0.keyId,
    ]);
    const box = new SecretBox(k2, [k1]);
    expect(await resealSecrets(h.sql, box, logger)).toEqual({ resealed: 0, changedMeanwhile: 0, unopenable: [lost] });
    expect((await h.sql.query('SELECT secret_key_id FROM endpoint WHERE channel_id = $1', [lost])).rows).toEqual([{ secret_key_id: 'k0' }]);

    // Only what was read is replaced: a stale read writes nothing.
    const stale = { keyId: 'k0', sealed: 'stale' };
    expect(await replaceSealedSecret(h.sql, lost, stale, box.seal('whsec_y', lost))).toBe(false);
    expect((await h.sql.query('SELECT secret_sealed FROM endpoint WHERE channel_id = $1', [lost])).rows).toEqual([{ secret_sealed: sealedWithK0.sealed }]);
  });
});
