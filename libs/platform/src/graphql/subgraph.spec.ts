import { graphql, parse } from 'graphql';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createLogger } from '../logging';
import { Problem } from '../problems';
import { formatSubgraphError, isUnstorableText, refusingUnstorableArguments } from './subgraph';

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

  it('a database out of reach is an outage, not a bug: the unavailable problem, worth retrying', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(formatSubgraphError(formatted, err, logger)).toEqual({
        message: expect.any(String),
        path: ['orders'],
        extensions: { code: 'unavailable', problem: { problemType: 'unavailable', detail: expect.stringMatching(/database/), extensions: {} } },
      });
    }
  });

  it('anything else unexpected is a generic error with a reference', () => {
    expect(isUnstorableText(new Error('connection reset'))).toBe(false);
    expect(isUnstorableText(Object.assign(new Error('invalid input syntax for type uuid: "x"'), { code: '22P02' }))).toBe(false);
    expect(formatSubgraphError(formatted, new Error('something broke'), logger)).toEqual({
      message: 'An unexpected error occurred.',
      path: ['orders'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', reference: expect.any(String) },
    });
  });
});

describe('refusingUnstorableArguments', () => {
  const calls: unknown[] = [];
  const schema = refusingUnstorableArguments(
    buildSubgraphSchema([
      {
        typeDefs: parse(`
          input TrackingInput { carrier: String }
          input ProgressInput { status: String!, trackingDetails: [TrackingInput!] }
          type Query { ping(text: String): String, plain: String }
          type Mutation { record(id: ID!, reason: String, input: ProgressInput): Boolean }
        `),
        resolvers: {
          Query: { ping: (_: unknown, args: { text?: string }) => args.text ?? 'pong', plain: () => 'plain' },
          Mutation: { record: (_: unknown, args: unknown) => (calls.push(args), true) },
        } as never,
      },
    ]),
  );
  const run = (source: string, variableValues?: Record<string, unknown>) => graphql({ schema, source, variableValues });

  it('refuses a NUL or an unpaired surrogate anywhere in a field\'s arguments, naming the member, before the resolver runs', async () => {
    const res = await run('mutation ($input: ProgressInput, $reason: String) { record(id: "1", reason: $reason, input: $input) }', {
      reason: 'late\u0000',
      input: { status: 'dispatched', trackingDetails: [{ carrier: 'ok' }, { carrier: 'RM\ud800' }] },
    });
    const problem = res.errors?.[0]?.originalError;
    expect(problem).toBeInstanceOf(Problem);
    expect((problem as Problem).violations?.map((v) => v.property)).toEqual(['reason', 'input.trackingDetails[1].carrier']);
    expect(calls).toEqual([]);
  });

  it('lets clean arguments and fields without arguments through', async () => {
    expect((await run('{ ping(text: "😀 fine") plain }')).data).toEqual({ ping: '😀 fine', plain: 'plain' });
    expect((await run('mutation { record(id: "1", reason: "late") }')).data).toEqual({ record: true });
    expect(calls).toHaveLength(1);
  });
});
