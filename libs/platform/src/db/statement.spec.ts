import { statement } from './statement';

describe('statement', () => {
  it('names the text it is given and binds the values of each call', () => {
    const byTeam = statement('test.by-team', 'SELECT 1 WHERE $1::text IS NOT NULL');
    expect(byTeam(['acme'])).toEqual({ name: 'test.by-team', text: 'SELECT 1 WHERE $1::text IS NOT NULL', values: ['acme'] });
    expect(byTeam(['other']).values).toEqual(['other']);
  });

  it('refuses one name for two texts, and accepts the same definition twice', () => {
    statement('test.twice', 'SELECT 1');
    expect(() => statement('test.twice', 'SELECT 1')).not.toThrow();
    expect(() => statement('test.twice', 'SELECT 2')).toThrow(/test.twice is already defined/);
  });
});
