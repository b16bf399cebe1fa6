import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { authoriseIncludeDeleted, mayReadProduct, productNotFound, readableTeam, teamForChange } from './authorisation';

const operator: Identity = { kind: 'service', service: 'orders' };
const acmeUser: Identity = { kind: 'backoffice', teamCode: 'acme', userId: 'u1' };
const acmeShop: Identity = { kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' };

function problemOf(fn: () => unknown): Problem | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof Problem) return err;
    throw err;
  }
}

describe('team-wide reads', () => {
  it('team identities read their own team, and nothing when naming another', () => {
    expect(readableTeam(acmeUser)).toBe('acme');
    expect(readableTeam(acmeShop, 'acme')).toBe('acme');
    expect(readableTeam(acmeShop, 'other')).toBeNull();
    expect(readableTeam(acmeUser, 'other')).toBeNull();
  });

  it('service identities must name the team', () => {
    expect(readableTeam(operator, 'other')).toBe('other');
    expect(problemOf(() => readableTeam(operator))?.violations?.[0]?.property).toBe('teamCode');
  });
});

describe('reading a product', () => {
  const live = { teamCode: 'acme', deletedAt: null };
  const deleted = { teamCode: 'acme', deletedAt: new Date() };
  const theirs = { teamCode: 'other', deletedAt: null };

  it('shows a live product of the own team only', () => {
    for (const who of [acmeUser, acmeShop]) {
      expect(mayReadProduct(who, live, false)).toBe(true);
      expect(mayReadProduct(who, theirs, false)).toBe(false);
      expect(mayReadProduct(who, deleted, false)).toBe(false);
    }
  });

  it('shows deleted products to back-office callers who ask, never to integrations', () => {
    expect(mayReadProduct(acmeUser, deleted, true)).toBe(true);
    expect(mayReadProduct(acmeUser, { ...theirs, deletedAt: new Date() }, true)).toBe(false);
    expect(mayReadProduct(acmeShop, deleted, true)).toBe(false);
    expect(problemOf(() => authoriseIncludeDeleted(acmeShop, true))?.problemType).toBe('forbidden');
    expect(authoriseIncludeDeleted(acmeShop, false)).toBe(false);
    expect(authoriseIncludeDeleted(acmeUser, true)).toBe(true);
  });

  it('lets services read any team', () => {
    expect(mayReadProduct(operator, theirs, false)).toBe(true);
    expect(mayReadProduct(operator, deleted, false)).toBe(false);
    expect(mayReadProduct(operator, deleted, true)).toBe(true);
  });
});

describe('changes', () => {
  it('are for the back-office of the team', () => {
    expect(teamForChange(acmeUser)).toBe('acme');
    expect(problemOf(() => teamForChange(acmeShop))?.problemType).toBe('forbidden');
    expect(problemOf(() => teamForChange(operator))?.problemType).toBe('forbidden');
  });

  it('answer every invisible product with the same not-found', () => {
    expect(productNotFound('x').toBody()).toEqual(productNotFound('x').toBody());
    expect(productNotFound('x').status).toBe(404);
  });
});
