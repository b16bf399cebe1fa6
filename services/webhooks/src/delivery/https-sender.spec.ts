import { parseAddressRanges } from '../domain/url-policy';
import { pinnedLookup } from './https-sender';

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
