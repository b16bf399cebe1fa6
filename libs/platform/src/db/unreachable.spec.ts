import vm from 'node:vm';
import { isDatabaseUnavailable, isDatabaseUnreachable } from './unreachable';

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
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      Object.assign(new Error('Too many database connections opened'), { code: 'P2037' }),
      Object.assign(new Error('Operations timed out'), { code: 'P1008' }),
      // Prisma 7's driver adapter: a SQLSTATE it has no code of its own for, in its message
      Object.assign(new Error('Invalid `prisma.team.findMany()` invocation: Database error. Code: `57P01`. Message: `terminating connection`'), { code: 'P2010' }),
      // ...a raw query's failure, with the adapter's error kind in its meta
      Object.assign(new Error("Invalid `prisma.$queryRaw()` invocation: Raw query failed. Code: `N/A`. Message: `Can't reach database server at 127.0.0.1:5432`"), {
        code: 'P2010',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 } } },
      }),
      Object.assign(new Error('Raw query failed.'), { code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'ConnectionClosed' } } } }),
      Object.assign(new Error('Connection lost'), { name: 'DriverAdapterError', cause: { kind: 'SocketTimeout' } }),
      // an interactive transaction that got no connection in time
      Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }),
    ];
    for (const err of unreachable) expect({ err: err.message, unreachable: isDatabaseUnreachable(err) }).toEqual({ err: err.message, unreachable: true });
  });

  it("knows an error made in another realm (Node's own modules' errors under a vm, as jest runs tests)", () => {
    const foreign = vm.runInNewContext(`Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })`) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(isDatabaseUnreachable(foreign)).toBe(true);
    const aggregate = vm.runInNewContext(`new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], 'x')`) as unknown;
    expect(isDatabaseUnreachable(aggregate)).toBe(true);
  });

  it('does not take a wrong statement, a conflict or a bug for an outage', () => {
    const other = [
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }),
      // a protocol violation (a parameter count that does not match): our bug, not an outage
      Object.assign(new Error('bind message supplies 2 parameters, but prepared statement "" requires 1'), { code: '08P01' }),
      Object.assign(new Error('Invalid invocation: Database error. Code: `23505`.'), { code: 'P2010' }),
      Object.assign(new Error('Raw query failed.'), { code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'UniqueConstraintViolation' } } } }),
      // a transaction our code let expire or used after its end: a bug, not an outage
      Object.assign(new Error('Transaction API error: Transaction already closed: A query cannot be executed on a committed transaction.'), { code: 'P2028' }),
      new TypeError("Cannot read properties of undefined (reading 'uuid')"),
      new Error('wrapped bug', { cause: new TypeError('x is not a function') }),
      'a string',
      null,
    ];
    for (const err of other) expect(isDatabaseUnreachable(err)).toBe(false);
  });
});

describe('isDatabaseUnavailable', () => {
  it('is an outage, or a database too busy to finish now: time-outs, and conflicts the retries did not get past', () => {
    for (const code of ['57014', '55P03', '40001', '40P01']) {
      expect(isDatabaseUnavailable(Object.assign(new Error(code), { code }))).toBe(true);
      expect(isDatabaseUnreachable(Object.assign(new Error(code), { code }))).toBe(false);
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }) }))).toBe(true);
  });

  it('is not a wrong statement or a bug', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is not a function'))).toBe(false);
  });
});
