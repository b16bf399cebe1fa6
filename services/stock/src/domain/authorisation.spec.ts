import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { authoriseChange, authoriseHolds, maySeeTeam, teamForBackOfficeRead, teamForChange, teamForFigures } from './authorisation';

const channel: Identity = { kind: 'channel', teamCode: 'acme', channelId: 'acme-shop' };
const backOffice: Identity = { kind: 'backoffice', teamCode: 'acme', userId: 'u1' };
const service: Identity = { kind: 'service', service: 'orders' };

function problemOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof Problem ? err.problemType : 'not a problem';
  }
  return undefined;
}

describe('stock authorisation', () => {
  it('lets channel and back-office identities read only their own team\'s figures', () => {
    expect(teamForFigures(channel)).toBe('acme');
    expect(teamForFigures(channel, 'acme')).toBe('acme');
    expect(teamForFigures(channel, 'other')).toBeNull();
    expect(teamForFigures(backOffice, 'other')).toBeNull();
    expect(teamForFigures(service, 'other')).toBe('other');
    expect(problemOf(() => teamForFigures(service))).toBe('validation-failed');
  });

  it('keeps integrations away from back-office reads and every change', () => {
    expect(problemOf(() => teamForBackOfficeRead(channel))).toBe('forbidden');
    expect(teamForBackOfficeRead(backOffice)).toBe('acme');
    expect(problemOf(() => teamForChange(channel))).toBe('forbidden');
    expect(problemOf(() => authoriseChange(channel, { teamCode: 'acme' }, () => Problem.notFound('x')))).toBe('forbidden');
  });

  it('answers another team\'s target as not found', () => {
    expect(problemOf(() => teamForChange(backOffice, 'other'))).toBe('not-found');
    expect(problemOf(() => authoriseChange(backOffice, { teamCode: 'other' }, () => Problem.notFound('x')))).toBe('not-found');
    expect(problemOf(() => authoriseChange(backOffice, null, () => Problem.notFound('x')))).toBe('not-found');
    expect(problemOf(() => authoriseChange(service, { teamCode: 'other' }, () => Problem.notFound('x')))).toBeUndefined();
    expect(maySeeTeam(channel, 'other')).toBe(false);
  });

  it('leaves holds to service identities', () => {
    expect(problemOf(() => authoriseHolds(backOffice))).toBe('forbidden');
    expect(problemOf(() => authoriseHolds(channel))).toBe('forbidden');
    expect(problemOf(() => authoriseHolds(service))).toBeUndefined();
  });
});
