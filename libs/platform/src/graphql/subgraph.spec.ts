import { createLogger } from '../logging';
import { formatSubgraphError, isUnstorableText } from './subgraph';

describe('formatSubgraphError', () => {
  const logger = createLogger('test', 'silent');
  const formatted = { message: 'x', path: ['orders'], extensions: { code: 'INTERNAL_SERVER_ERROR' } };

  it("answers PostgreSQL's refusal of a NUL in text as the caller's validation failure, naming where it came in", () => {
    const prismaWrapped = new Error('Invalid `prisma.order.findMany()` invocation: Database error. Code: `22021`. Message: `invalid byte sequence for encoding "UTF8": 0x00`');
    const pgError = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    const surrogate = Object.assign(new Error('invalid input syntax for type json'), { code: '22P02', detail: 'Unicode low surrogate must follow a high surrogate.' });
    const surrogates = Object.assign(new Error('invalid input syntax for type json'), { code: '22P02', detail: 'Unicode high surrogate must not follow a high surrogate.' });
    for (const err of [prismaWrapped, pgError, surrogate, surrogates]) {
      expect(isUnstorableText(err)).toBe(true);
      expect(formatSubgraphError(formatted, err, logger)).toMatchObject({
        path: ['orders'],
        extensions: { code: 'validation-failed', problem: { problemType: 'validation-failed', violations: [{ property: 'orders' }] } },
      });
    }
  });

  it('anything else unexpected is a generic error with a reference', () => {
    expect(isUnstorableText(new Error('connection reset'))).toBe(false);
    expect(isUnstorableText(Object.assign(new Error('invalid input syntax for type uuid: "x"'), { code: '22P02' }))).toBe(false);
    expect(formatSubgraphError(formatted, new Error('connection reset'), logger)).toEqual({
      message: 'An unexpected error occurred.',
      path: ['orders'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', reference: expect.any(String) },
    });
  });
});
