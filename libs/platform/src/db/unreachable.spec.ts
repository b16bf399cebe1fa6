import { isDatabaseUnreachable } from './unreachable';

describe('isDatabaseUnreachable', () => {
  it('knows a database out of reach, going away or without a connection to give', () => {
    const unreachable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: 'P1001' }),
      Object.assign(new Error('Timed out fetching a new connection from the connection pool.'), { code: 'P2024' }),
      new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], 'connect failed'),
      new Error('driver adapter failed', { cause: Object.assign(new Error('connection failure'), { code: '08006' }) }),
    ];
    for (const err of unreachable) expect({ err: err.message, unreachable: isDatabaseUnreachable(err) }).toEqual({ err: err.message, unreachable: true });
  });

  it('does not take a wrong statement, a conflict or a bug for an outage', () => {
    const other = [
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }),
      new TypeError("Cannot read properties of undefined (reading 'uuid')"),
      new Error('wrapped bug', { cause: new TypeError('x is not a function') }),
      'a string',
      null,
    ];
    for (const err of other) expect(isDatabaseUnreachable(err)).toBe(false);
  });
});
