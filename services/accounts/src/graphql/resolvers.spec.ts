import { recordingLogger } from '@pf/platform/testing/recorded-logs';
import { resolvers, type AccountsContext } from './resolvers';

describe('accounts resolvers: credentials changing hands are logged, the token never', () => {
  function context() {
    const { logger, lines } = recordingLogger();
    const issued = { token: 'pft_secret-token-value', apiToken: { id: 'tok-2', prefix: 'pft_secr', channelId: 'acme-shop', createdAt: new Date() }, revokedTokenId: 'tok-1' };
    const accounts = { issueApiToken: async () => issued, revokeApiToken: async () => 'tok-2' };
    const ctx = { identity: { kind: 'backoffice', teamCode: 'acme', userId: 'ann' }, logger, accounts } as unknown as AccountsContext;
    return { ctx, lines, issued };
  }
  const mutation = (name: string) => (resolvers.Mutation as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;

  it('an issued token: which channel, which token id and prefix, which one it revoked, who', async () => {
    const { ctx, lines, issued } = context();
    expect(await mutation('issueApiToken')(undefined, { channelId: 'acme-shop' }, ctx)).toBe(issued);
    expect(lines).toEqual([
      { level: 'info', msg: 'API token issued', obj: { channelId: 'acme-shop', tokenId: 'tok-2', tokenPrefix: 'pft_secr', revokedTokenId: 'tok-1', actor: 'backoffice:ann' } },
    ]);
    expect(JSON.stringify(lines)).not.toContain(issued.token);
  });

  it('a revoked token: which channel, which token, who; nothing when there was none to revoke', async () => {
    const { ctx, lines } = context();
    expect(await mutation('revokeApiToken')(undefined, { channelId: 'acme-shop' }, ctx)).toBe(true);
    expect(lines).toEqual([{ level: 'info', msg: 'API token revoked', obj: { channelId: 'acme-shop', tokenId: 'tok-2', actor: 'backoffice:ann' } }]);
    const none = context();
    (none.ctx.accounts as unknown as { revokeApiToken: () => Promise<null> }).revokeApiToken = async () => null;
    expect(await mutation('revokeApiToken')(undefined, { channelId: 'acme-shop' }, none.ctx)).toBe(false);
    expect(none.lines).toEqual([]);
  });
});
