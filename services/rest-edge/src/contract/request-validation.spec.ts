import type { Request } from 'express';
import { Problem } from '@pf/platform/problems';
import { bracketNotationTarget, refuseRepeatedParameters, undecodableQueryParameters } from './request-validation';

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

describe('undecodableQueryParameters', () => {
  const names = new Set(['order-number', 'status']);
  it('names each documented parameter whose value is not percent-encoded UTF-8, once', () => {
    expect(undecodableQueryParameters('order-number=%FF&status=queued&order-number=%E2%82', names)).toEqual(['order-number']);
    expect(undecodableQueryParameters('status=%&order-number=a%ZZ', names)).toEqual(['status', 'order-number']);
    // the name itself may be escaped
    expect(undecodableQueryParameters('order%2Dnumber=%C0%AF', names)).toEqual(['order-number']);
  });
  it('lets UTF-8, plus signs, empty values and unknown parameters through', () => {
    expect(undecodableQueryParameters('order-number=%E2%82%AC+1&status=&flag', names)).toEqual([]);
    expect(undecodableQueryParameters('other=%FF&%FF=x', names)).toEqual([]);
    expect(undecodableQueryParameters('', names)).toEqual([]);
  });
});

describe('refuseRepeatedParameters', () => {
  const check = refuseRepeatedParameters(() => ({ names: ['order-number', 'page', 'status'], integers: ['page'], lists: ['status'] }));
  const outcome = (query: Record<string, unknown>) => {
    let passed: unknown = 'not called';
    check({ query } as unknown as Request, {} as never, (err?: unknown) => (passed = err));
    return passed;
  };

  it('names each parameter that is not a list and came more than once; lists and unknown parameters may repeat', () => {
    expect(outcome({ status: ['queued', 'draft'], other: ['a', 'b'], page: '2' })).toBeUndefined();
    const refusal = outcome({ 'order-number': ['a', 'b'], page: ['1', '2'], status: ['queued'] });
    expect(refusal).toBeInstanceOf(Problem);
    expect((refusal as Problem).violations).toEqual([
      { property: 'order-number', message: 'must be given once' },
      { property: 'page', message: 'must be given once' },
    ]);
  });
});
