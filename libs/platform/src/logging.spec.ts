import { createLogger, serializeError } from './logging';

describe('serializeError', () => {
  it('keeps what explains the error and leaves out the client pg-pool hangs on it', () => {
    const err = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
      client: { connectionParameters: { host: '127.0.0.1' }, _types: { big: 'x'.repeat(5000) } },
    });
    const out = serializeError(err) as Record<string, unknown>;
    expect(out).toMatchObject({ type: 'Error', message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' });
    expect(out.stack).toEqual(expect.stringContaining('terminating connection'));
    expect(out).not.toHaveProperty('client');
    // The error itself is not changed.
    expect(err.client).toBeDefined();
  });

  it('leaves the client out of the errors an AggregateError carries too', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED', client: { big: 'x'.repeat(5000) } });
    const out = serializeError(new AggregateError([refused('127.0.0.1:5432'), refused('[::1]:5432')], 'connect failed')) as { aggregateErrors: Record<string, unknown>[] };
    expect(out.aggregateErrors).toHaveLength(2);
    for (const inner of out.aggregateErrors) {
      expect(inner).toMatchObject({ code: 'ECONNREFUSED' });
      expect(inner).not.toHaveProperty('client');
    }
  });

  it('passes what is not an error through as pino does', () => {
    expect(serializeError('plain text')).toBe('plain text');
  });
});

describe('createLogger', () => {
  it('never writes a credential: tokens, secrets, passwords, JWTs, signatures, Authorization and Cookie headers, at the top or one level down', () => {
    const written: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void written.push(line) });
    logger.info(
      {
        token: 'pft_top', secret: 'whsec_top', password: 'pw-top', jwt: 'eyJ.top', signature: 'ab12top', authorization: 'Bearer top',
        channel: { token: 'pft_inner', secret: 'whsec_inner' },
        req: { headers: { authorization: 'Bearer inner', cookie: 'sid=inner', 'x-request-id': 'kept' } },
        headers: { authorization: 'Bearer header' },
        delivery: { signature: 'ab12inner' },
        channelId: 'acme-shop',
      },
      'something happened',
    );
    const line = written.join('');
    for (const secret of ['pft_top', 'whsec_top', 'pw-top', 'eyJ.top', 'ab12top', 'Bearer top', 'pft_inner', 'whsec_inner', 'Bearer inner', 'sid=inner', 'Bearer header', 'ab12inner']) {
      expect({ secret, logged: line.includes(secret) }).toEqual({ secret, logged: false });
    }
    expect(line).toContain('[redacted]');
    expect(line).toContain('"x-request-id":"kept"');
    expect(line).toContain('"channelId":"acme-shop"');
  });
});

