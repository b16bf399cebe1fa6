import { parseAddressRanges } from '../domain/url-policy';
import { describeError, pinnedLookup } from './https-sender';

type Callback = (err: NodeJS.ErrnoException | null, address?: unknown, family?: number) => void;

function lookup(fn: ReturnType<typeof pinnedLookup>, host: string, options: object): Promise<{ err: NodeJS.ErrnoException | null; address?: unknown; family?: number }> {
  return new Promise((resolve) => (fn as unknown as (h: string, o: object, cb: Callback) => void)(host, options, (err, address, family) => resolve({ err, address, family })));
}

describe('the pinned lookup handed to the HTTP client', () => {
  const checked = [
    { address: '93.184.216.34', family: 4 as const },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 as const },
  ];
  const pinned = pinnedLookup('hooks.example.com', checked, { allowedRanges: [] });

  it('answers exactly the checked addresses, resolving nothing', async () => {
    expect(await lookup(pinned, 'hooks.example.com', { all: true })).toEqual({ err: null, address: checked, family: undefined });
    expect(await lookup(pinned, 'hooks.example.com', {})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookup(pinned, 'HOOKS.example.com', { family: 6 })).toEqual({ err: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('refuses any other host name', async () => {
    const { err } = await lookup(pinned, 'evil.example.com', { all: true });
    expect(err?.code).toBe('EPOLICY');
  });

  it('judges the addresses once more and drops any that is not public', async () => {
    const tainted = pinnedLookup('hooks.example.com', [{ address: '127.0.0.1', family: 4 }], { allowedRanges: [] });
    expect((await lookup(tainted, 'hooks.example.com', { all: true })).err?.code).toBe('EPOLICY');
    const allowed = pinnedLookup('hooks.example.com', [{ address: '127.0.0.1', family: 4 }], { allowedRanges: parseAddressRanges(['127.0.0.1/32']) });
    expect((await lookup(allowed, 'hooks.example.com', {})).address).toBe('127.0.0.1');
  });

  it('fails when no checked address has the family asked for', async () => {
    const v4only = pinnedLookup('hooks.example.com', [checked[0]!], { allowedRanges: [] });
    expect((await lookup(v4only, 'hooks.example.com', { family: 6 })).err?.code).toBe('EPOLICY');
  });
});

describe("an attempt's failure as the merchant reads it", () => {
  it("gives OpenSSL's reason, not its source path", () => {
    const tls = Object.assign(new Error('write EPROTO 80AC6267427F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n'), { code: 'EPROTO' });
    expect(describeError(tls)).toBe('EPROTO: TLS: wrong version number');
  });

  it('keeps other failures as they are worded', () => {
    expect(describeError(Object.assign(new Error('connect ECONNREFUSED 203.0.113.7:443'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED: connect ECONNREFUSED 203.0.113.7:443');
    expect(describeError(Object.assign(new Error('no answer within 10000 ms'), { code: 'ETIMEDOUT' }))).toBe('timeout: no answer within 10000 ms');
    expect(describeError(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
  });
});

