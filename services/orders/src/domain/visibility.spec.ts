import { isVisible, scopeOf } from './visibility';

const order = (teamCode: string, channelId: string, origin: 'api' | 'merchant-app' | 'import') => ({ teamCode, channelId, origin });

describe('rule O1: visibility', () => {
  const channel = scopeOf({ kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' });
  it('a channel sees only API orders created on it', () => {
    expect(isVisible(channel, order('acme', 'acme-shop', 'api'))).toBe(true);
    expect(isVisible(channel, order('acme', 'acme-other', 'api'))).toBe(false);
    expect(isVisible(channel, order('acme', 'acme-shop', 'import'))).toBe(false);
    expect(isVisible(channel, order('acme', 'acme-standard', 'merchant-app'))).toBe(false);
    expect(isVisible(channel, order('acme', 'acme-shop', 'merchant-app'))).toBe(false);
    expect(isVisible(channel, order('other', 'acme-shop', 'api'))).toBe(false);
  });
  it('back-office sees every order of its team; services see all', () => {
    const team = scopeOf({ kind: 'backoffice', teamCode: 'acme', userId: 'u' });
    expect(isVisible(team, order('acme', 'acme-standard', 'merchant-app'))).toBe(true);
    expect(isVisible(team, order('acme', 'acme-shop', 'import'))).toBe(true);
    expect(isVisible(team, order('other', 'other-shop', 'api'))).toBe(false);
    expect(isVisible(scopeOf({ kind: 'service', service: 'ops' }), order('other', 'other-shop', 'api'))).toBe(true);
  });
});
