import { authoriseBackOffice, maySeeTeam, parseChannelId, targetChannel } from './authorisation';

const channel = { kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' } as const;
const backoffice = { kind: 'backoffice', teamCode: 'acme', userId: 'u1' } as const;
const service = { kind: 'service', service: 'ops' } as const;

describe('webhook authorisation', () => {
  it('splits a channel id at the first hyphen (team codes have none)', () => {
    expect(parseChannelId('acme-shop-eu')).toEqual({ channelId: 'acme-shop-eu', teamCode: 'acme', channelCode: 'shop-eu' });
    expect(parseChannelId('acme')).toBeNull();
    expect(parseChannelId('-shop')).toBeNull();
    expect(parseChannelId('acme-')).toBeNull();
  });

  it('an integration acts on its own channel only', () => {
    expect(targetChannel(channel)).toEqual({ channelId: 'acme-shop', teamCode: 'acme', channelCode: 'shop' });
    expect(targetChannel(channel, 'acme-shop').channelId).toBe('acme-shop');
    expect(() => targetChannel(channel, 'acme-other')).toThrow(expect.objectContaining({ problemType: 'not-found' }));
  });

  it('a back-office user names a channel of their team', () => {
    expect(targetChannel(backoffice, 'acme-shop').channelCode).toBe('shop');
    expect(() => targetChannel(backoffice, 'other-shop')).toThrow(expect.objectContaining({ problemType: 'not-found' }));
    expect(() => targetChannel(backoffice)).toThrow(expect.objectContaining({ problemType: 'validation-failed' }));
  });

  it('a service identity names any channel', () => {
    expect(targetChannel(service, 'other-shop').teamCode).toBe('other');
  });

  it('the delivery log is not for integrations', () => {
    expect(() => authoriseBackOffice(channel)).toThrow(expect.objectContaining({ problemType: 'forbidden' }));
    expect(() => authoriseBackOffice(backoffice)).not.toThrow();
    expect(maySeeTeam(backoffice, 'acme')).toBe(true);
    expect(maySeeTeam(backoffice, 'other')).toBe(false);
    expect(maySeeTeam(service, 'other')).toBe(true);
  });
});
