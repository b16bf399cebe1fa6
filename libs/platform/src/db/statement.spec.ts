import { prepared, statement } from './statement';

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

describe('prepared', () => {
  it('gives one text one name for the life of the process, and another text another', () => {
    const a = prepared('test', 'SELECT $1::int', [1]);
    const again = prepared('test', 'SELECT $1::int', [2]);
    const b = prepared('test', 'SELECT $1::text', ['x']);
    expect(a.name).toMatch(/^test\.\d+$/);
    expect(again).toEqual({ name: a.name, text: 'SELECT $1::int', values: [2] });
    expect(b.name).not.toBe(a.name);
    expect(prepared('other', 'SELECT $1::int', [1]).name).toMatch(/^other\./);
  });
});
