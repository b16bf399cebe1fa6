import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { refusalResponse, unauthenticated } from './refusals';

const window = { limit: 60, count: 60, nowMs: 1_000_500, resetAtMs: 1_020_000 };

describe('refusalResponse', () => {
  it('answers 401 with one body whatever the cause', () => {
    expect(refusalResponse({ reason: 'unauthenticated' }).problem.toBody()).toEqual(unauthenticated().toBody());
    expect(unauthenticated().toBody()).toEqual({
      type: `${PROBLEM_TYPE_BASE}unauthenticated`,
      title: 'Unauthorized',
      status: 401,
      detail: 'The API token is missing or not valid for this channel.',
    });
  });

  it('answers both rate limits 429 Too Many Requests with the four headers of the exceeded limit', () => {
    for (const reason of ['failed-auth-limit', 'token-rate-limit'] as const) {
      const { problem, headers } = refusalResponse({ reason, window });
      expect(problem.toBody()).toMatchObject({ type: `${PROBLEM_TYPE_BASE}rate-limited`, title: 'Too Many Requests', status: 429 });
      expect(headers).toEqual({ 'Retry-After': '20', 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1020' });
    }
  });

  it.each([
    ['channel-not-owned', 404, 'Not Found', 'not-found'],
    ['channel-inactive', 403, 'Forbidden', 'channel-inactive'],
    ['standard-channel', 403, 'Forbidden', 'standard-channel'],
  ] as const)('%s is %i %s of type %s', (reason, status, title, type) => {
    const { problem, headers } = refusalResponse({ reason });
    expect(problem.toBody()).toMatchObject({ type: PROBLEM_TYPE_BASE + type, title, status });
    expect(headers).toEqual({});
  });
});
