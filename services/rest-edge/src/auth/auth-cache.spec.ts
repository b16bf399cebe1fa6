import type { ChannelTokenFacts } from '../domain/access';
import { AuthCache } from './auth-cache';

const facts = (channelId: string, teamCode = channelId.split('-')[0]!): ChannelTokenFacts => ({
  channelExists: true,
  channel: { id: channelId, teamCode, active: true, standard: false },
  token: { id: `tok-${channelId}`, channelId, teamCode, createdAt: '2026-10-20T10:00:00.000Z', channelActive: true, channelStandard: false },
  teamActive: true,
});

const H1 = '1'.repeat(64);
const H2 = '2'.repeat(64);

describe('AuthCache', () => {
  let now: number;
  const make = (ttlMs = 30_000, maxEntries = 100) => new AuthCache({ ttlMs, maxEntries, clock: () => now });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('returns what was stored for the same channel and token hash only', () => {
    const c = make();
    c.set('acme-shop', H1, facts('acme-shop'), c.generation);
    expect(c.get('acme-shop', H1)).toEqual(facts('acme-shop'));
    expect(c.get('acme-shop', H2)).toBeUndefined();
    expect(c.get('acme-other', H1)).toBeUndefined();
  });

  it('expires entries after the TTL', () => {
    const c = make(1_000);
    c.set('acme-shop', H1, facts('acme-shop'), c.generation);
    now += 999;
    expect(c.get('acme-shop', H1)).toBeDefined();
    now += 1;
    expect(c.get('acme-shop', H1)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('drops every entry of a team at once, and only that team', () => {
    const c = make();
    c.set('acme-shop', H1, facts('acme-shop'), c.generation);
    c.set('acme-other', H1, facts('acme-other'), c.generation);
    c.set('beta-shop', H2, facts('beta-shop'), c.generation);
    const seen: string[] = [];
    c.onInvalidate((team, reason) => seen.push(`${team}:${reason}`));
    c.invalidateTeam('acme', 'api-token.revoked');
    expect(c.get('acme-shop', H1)).toBeUndefined();
    expect(c.get('acme-other', H1)).toBeUndefined();
    expect(c.get('beta-shop', H2)).toBeDefined();
    expect(seen).toEqual(['acme:api-token.revoked']);
  });

  it('does not store a lookup that was in flight while something was invalidated', () => {
    const c = make();
    const generation = c.generation;
    c.invalidateTeam('acme', 'channel.updated');
    c.set('acme-shop', H1, facts('acme-shop'), generation);
    expect(c.get('acme-shop', H1)).toBeUndefined();
    c.set('acme-shop', H1, facts('acme-shop'), c.generation);
    expect(c.get('acme-shop', H1)).toBeDefined();
  });

  it('evicts the oldest entries beyond its size', () => {
    const c = make(30_000, 2);
    c.set('acme-a', H1, facts('acme-a'), c.generation);
    c.set('acme-b', H1, facts('acme-b'), c.generation);
    c.set('acme-c', H1, facts('acme-c'), c.generation);
    expect(c.size).toBe(2);
    expect(c.get('acme-a', H1)).toBeUndefined();
    expect(c.get('acme-c', H1)).toBeDefined();
    // the evicted entry left the team index too: invalidating the team empties the cache
    c.invalidateTeam('acme', 'x');
    expect(c.size).toBe(0);
  });

  it('stores nothing with a TTL of 0', () => {
    const c = make(0);
    c.set('acme-shop', H1, facts('acme-shop'), c.generation);
    expect(c.get('acme-shop', H1)).toBeUndefined();
    expect(c.enabled).toBe(false);
  });
});
