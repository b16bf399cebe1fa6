import { ApiTokenIssued, ApiTokenRevoked, ChannelCreated, ChannelUpdated, TeamCreated, TeamUpdated } from '@pf/platform/events/accounts';
import { teamAffectedBy } from './invalidation';

const channel = { channelId: 'acme-shop', teamCode: 'acme', channelCode: 'shop', name: 'Shop', active: false, standard: false };
const token = { tokenId: '6f9e3c55-0d1e-4a8b-9a57-1b2c3d4e5f60', channelId: 'acme-shop', teamCode: 'acme' };

describe('teamAffectedBy', () => {
  it('names the team of every accounts change that can alter cached credentials', () => {
    expect(teamAffectedBy(TeamUpdated.create('acme', { teamCode: 'acme', name: 'Acme', active: false }))).toBe('acme');
    expect(teamAffectedBy(ChannelUpdated.create('acme-shop', channel))).toBe('acme');
    expect(teamAffectedBy(ChannelCreated.create('acme-shop', channel))).toBe('acme');
    expect(teamAffectedBy(ApiTokenIssued.create('acme-shop', { ...token, revokedTokenId: null }))).toBe('acme');
    expect(teamAffectedBy(ApiTokenRevoked.create('acme-shop', token))).toBe('acme');
  });

  it('ignores events that cannot turn a cached grant into a refusal', () => {
    expect(teamAffectedBy(TeamCreated.create('acme', { teamCode: 'acme', name: 'Acme', active: true }))).toBeUndefined();
    expect(
      teamAffectedBy({ id: 'x', type: 'order.created', schemaVersion: 1, occurredAt: new Date().toISOString(), aggregateType: 'order', aggregateId: 'o', payload: {} }),
    ).toBeUndefined();
  });
});
