import { prepared, statement } from './statement';

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

describe('statement', () => {
  it('binds the values of each call to the name prepared gives its text', () => {
    const byTeam = statement('test', 'SELECT 1 WHERE $1::text IS NOT NULL');
    const name = prepared('test', 'SELECT 1 WHERE $1::text IS NOT NULL', []).name;
    expect(byTeam(['acme'])).toEqual({ name, text: 'SELECT 1 WHERE $1::text IS NOT NULL', values: ['acme'] });
    expect(byTeam(['other']).values).toEqual(['other']);
  });

  it('two definitions of one text share its name; another text gets another', () => {
    const one = statement('test', 'SELECT 2')([]);
    expect(statement('test', 'SELECT 2')([]).name).toBe(one.name);
    expect(statement('test', 'SELECT 3')([]).name).not.toBe(one.name);
  });
});
