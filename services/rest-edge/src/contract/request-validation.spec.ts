import { bracketNotationTarget } from './request-validation';

describe('bracketNotationTarget', () => {
  it('names the parameter a bracket key nests under, as the validator would read it', () => {
    expect(bracketNotationTarget('status[x]')).toBe('status');
    expect(bracketNotationTarget('status[]')).toBe('status');
    expect(bracketNotationTarget('status[x][y]')).toBe('status');
    expect(bracketNotationTarget('active-state[__proto__]')).toBe('active-state');
    expect(bracketNotationTarget('st[atus')).toBe('st');
  });

  it('is undefined for a plain key and for a key starting with a bracket (the validator drops it)', () => {
    expect(bracketNotationTarget('status')).toBeUndefined();
    expect(bracketNotationTarget('status]')).toBeUndefined();
    expect(bracketNotationTarget('[]')).toBeUndefined();
    expect(bracketNotationTarget('[status]')).toBeUndefined();
    expect(bracketNotationTarget('[status')).toBeUndefined();
  });
});
