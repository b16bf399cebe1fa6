import { checkFence, fenceViolations } from './order-fence';

describe('checkFence', () => {
  it('lets every call through for an order never fenced, with or without a token', () => {
    expect(checkFence(null, null)).toEqual({ kind: 'pass' });
    expect(checkFence(null, 7n)).toEqual({ kind: 'pass' });
  });

  it('lets the change that raised the fence and later changes through', () => {
    expect(checkFence(10n, 10n)).toEqual({ kind: 'pass' });
    expect(checkFence(10n, 11n)).toEqual({ kind: 'pass' });
  });

  it('refuses an earlier change once the fence is raised above it', () => {
    expect(checkFence(10n, 9n)).toEqual({ kind: 'stale', fence: 10n, call: 9n });
  });

  it('refuses a call without a token once the order is fenced (a change that cannot say which it is)', () => {
    expect(checkFence(10n, null)).toEqual({ kind: 'stale', fence: 10n, call: null });
  });
});

describe('fenceViolations', () => {
  it('accepts no token, and positive decimal integers up to 2^63 - 1', () => {
    expect(fenceViolations(undefined, 'fence')).toEqual([]);
    expect(fenceViolations(null, 'fence')).toEqual([]);
    expect(fenceViolations('1', 'fence')).toEqual([]);
    expect(fenceViolations('9223372036854775807', 'fence')).toEqual([]);
  });

  it.each(['', '0', '-1', '01', '1.5', '1e3', ' 1', '9223372036854775808', '99999999999999999999'])('refuses %j, naming the field', (fence) => {
    expect(fenceViolations(fence, 'input.fence')).toEqual([{ property: 'input.fence', message: expect.any(String) }]);
  });
});
