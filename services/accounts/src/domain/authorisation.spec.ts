import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import {
  authoriseChannelAdministration,
  authoriseCreateTeam,
  authoriseTokenCheck,
  authoriseUpdateTeam,
  mayReadChannel,
  mayReadTeam,
  readScopeOf,
  teamForNewChannel,
} from './authorisation';

const operator: Identity = { kind: 'service', service: 'ops' };
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

describe('reading', () => {
  it('operators read every team and channel', () => {
    const scope = readScopeOf(operator);
    expect(mayReadTeam(scope, 'other')).toBe(true);
    expect(mayReadChannel(scope, { id: 'other-x', teamCode: 'other' })).toBe(true);
  });

  it('back-office users read their own team and all its channels, nothing of another team', () => {
    const scope = readScopeOf(acmeUser);
    expect(mayReadTeam(scope, 'acme')).toBe(true);
    expect(mayReadTeam(scope, 'other')).toBe(false);
    expect(mayReadChannel(scope, { id: 'acme-web', teamCode: 'acme' })).toBe(true);
    expect(mayReadChannel(scope, { id: 'other-web', teamCode: 'other' })).toBe(false);
  });

  it('a channel identity reads its own team and only its own channel', () => {
    const scope = readScopeOf(acmeShop);
    expect(mayReadTeam(scope, 'acme')).toBe(true);
    expect(mayReadTeam(scope, 'other')).toBe(false);
    expect(mayReadChannel(scope, { id: 'acme-shop', teamCode: 'acme' })).toBe(true);
    expect(mayReadChannel(scope, { id: 'acme-web', teamCode: 'acme' })).toBe(false);
    expect(mayReadChannel(scope, { id: 'acme-standard', teamCode: 'acme' })).toBe(false);
  });
});

describe('creating teams', () => {
  it('is for operators only', () => {
    expect(problemOf(() => authoriseCreateTeam(operator))).toBeUndefined();
    expect(problemOf(() => authoriseCreateTeam(acmeUser))?.problemType).toBe('forbidden');
    expect(problemOf(() => authoriseCreateTeam(acmeShop))?.problemType).toBe('forbidden');
  });
});

describe('updating a team', () => {
  const acme = { code: 'acme' };
  const rename = { name: true, active: false };
  const activate = { name: false, active: true };

  it('lets the team’s back-office rename it but not (de)activate it', () => {
    expect(problemOf(() => authoriseUpdateTeam(acmeUser, 'acme', acme, rename))).toBeUndefined();
    expect(problemOf(() => authoriseUpdateTeam(acmeUser, 'acme', acme, activate))?.problemType).toBe('forbidden');
  });

  it('lets operators do both', () => {
    expect(problemOf(() => authoriseUpdateTeam(operator, 'acme', acme, { name: true, active: true }))).toBeUndefined();
  });

  it('answers another team exactly like a team that does not exist', () => {
    const other = problemOf(() => authoriseUpdateTeam(acmeUser, 'other', { code: 'other' }, activate));
    const missing = problemOf(() => authoriseUpdateTeam(acmeUser, 'other', null, activate));
    expect(other?.problemType).toBe('not-found');
    expect(other?.toBody()).toEqual(missing?.toBody());
  });

  it('refuses channel identities', () => {
    expect(problemOf(() => authoriseUpdateTeam(acmeShop, 'acme', acme, rename))?.problemType).toBe('forbidden');
  });
});

describe('channel and token administration', () => {
  it('lets the team’s back-office and operators manage the team’s channels', () => {
    expect(problemOf(() => authoriseChannelAdministration(acmeUser, 'acme-web', { teamCode: 'acme' }))).toBeUndefined();
    expect(problemOf(() => authoriseChannelAdministration(operator, 'acme-web', { teamCode: 'acme' }))).toBeUndefined();
  });

  it('answers another team’s channel exactly like a missing one', () => {
    const other = problemOf(() => authoriseChannelAdministration(acmeUser, 'other-web', { teamCode: 'other' }));
    const missing = problemOf(() => authoriseChannelAdministration(acmeUser, 'other-web', null));
    expect(other?.problemType).toBe('not-found');
    expect(other?.toBody()).toEqual(missing?.toBody());
  });

  it('refuses channel identities, even on their own channel', () => {
    expect(problemOf(() => authoriseChannelAdministration(acmeShop, 'acme-shop', { teamCode: 'acme' }))?.problemType).toBe(
      'forbidden',
    );
  });

  it('puts a back-office user’s new channel in their own team', () => {
    expect(teamForNewChannel(acmeUser, undefined)).toBe('acme');
    expect(teamForNewChannel(acmeUser, 'acme')).toBe('acme');
    expect(problemOf(() => teamForNewChannel(acmeUser, 'other'))?.problemType).toBe('not-found');
  });

  it('makes operators name the team', () => {
    expect(teamForNewChannel(operator, 'other')).toBe('other');
    expect(teamForNewChannel(operator, undefined)).toBeUndefined();
    expect(problemOf(() => teamForNewChannel(acmeShop, 'acme'))?.problemType).toBe('forbidden');
  });
});

describe('channel token checks', () => {
  it('are for service identities only', () => {
    expect(problemOf(() => authoriseTokenCheck(operator))).toBeUndefined();
    expect(problemOf(() => authoriseTokenCheck(acmeUser))?.problemType).toBe('forbidden');
    expect(problemOf(() => authoriseTokenCheck(acmeShop))?.problemType).toBe('forbidden');
  });
});
