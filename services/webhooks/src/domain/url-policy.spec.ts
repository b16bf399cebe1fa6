import {
  checkUrlForm,
  checkWebhookUrl,
  expandPlaceholder,
  judgeAddress,
  parseAddressRanges,
  type HostResolver,
  type ResolvedAddress,
  type UrlRefusalCode,
} from './url-policy';

/** A DNS stand-in: names map to their A/AAAA answers; `servfail.example.com` fails outright. */
const zone: Record<string, ResolvedAddress[]> = {
  'hooks.example.com': [{ address: '93.184.216.34', family: 4 }],
  'dual.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ],
  'v6only.example.com': [{ address: '2606:4700:4700::1111', family: 6 }],
  'intranet.example.com': [{ address: '10.1.2.3', family: 4 }],
  'mixed.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: '192.168.1.10', family: 4 },
  ],
  'mixed6.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: 'fd12:3456::1', family: 6 },
  ],
  'loopback6.example.com': [{ address: '::1', family: 6 }],
  'mapped.example.com': [{ address: '::ffff:7f00:1', family: 6 }],
  'metadata.example.com': [{ address: '169.254.169.254', family: 4 }],
  'cgnat.example.com': [{ address: '100.64.0.7', family: 4 }],
  'xn--bcher-kva.example.com': [{ address: '93.184.216.34', family: 4 }],
  'example.com': [{ address: '93.184.216.34', family: 4 }],
};
const resolver: HostResolver = {
  async resolve(name) {
    if (name === 'servfail.example.com') throw Object.assign(new Error('queryA ESERVFAIL servfail.example.com via 10.0.0.53'), { code: 'ESERVFAIL' });
    return zone[name] ?? [];
  },
};

const long = `https://hooks.example.com/${'a'.repeat(200 - 'https://hooks.example.com/'.length)}`;

/** [url, expected refusal code or 'ok'] */
const TABLE: [string, UrlRefusalCode | 'ok'][] = [
  // public controls that must pass
  ['https://hooks.example.com/webhooks', 'ok'],
  ['https://hooks.example.com:8443/in?x=1', 'ok'],
  ['https://HOOKS.Example.COM./webhooks', 'ok'],
  ['https://dual.example.com/', 'ok'],
  ['https://v6only.example.com/', 'ok'],
  ['https://[2606:4700:4700::1111]/', 'ok'],
  ['https://1.1.1.1/hook', 'ok'],
  ['https://[64:ff9b::808:808]/', 'ok'], // NAT64 of a public IPv4
  ['https://bücher.example.com/', 'ok'], // IDN -> xn--bcher-kva.example.com
  ['https://hooks.example.com/{notificationType}', 'ok'],
  ['https://hooks.example.com/in?type={notificationType}', 'ok'],
  ['https://hooks.example.com/in/a@b?c=d@e', 'ok'], // an @ past the authority is no userinfo
  [long, 'ok'],
  // form
  [`${long}b`, 'too-long'],
  // 200 as sent, longer once parsed (the placeholder's braces escaped, the host's slash added): accepted
  [`https://hooks.example.com/${'a'.repeat(200 - 'https://hooks.example.com/'.length - '{notificationType}'.length)}{notificationType}`, 'ok'],
  [`https://hooks.example.com?${'a'.repeat(200 - 'https://hooks.example.com?'.length)}`, 'ok'],
  ['http://hooks.example.com/', 'not-https'],
  ['ftp://hooks.example.com/', 'not-https'],
  ['https:hooks.example.com/', 'not-https'],
  ['//hooks.example.com/', 'not-https'],
  ['hooks.example.com/webhooks', 'not-https'],
  ['', 'not-a-url'],
  ['https://', 'not-a-url'],
  ['https://hooks.example.com/ a', 'not-a-url'],
  [' https://hooks.example.com/', 'not-a-url'],
  ['https://user@hooks.example.com/', 'userinfo'],
  ['https://user:secret@hooks.example.com/', 'userinfo'],
  ['https://:secret@hooks.example.com/', 'userinfo'],
  ['https://@hooks.example.com/', 'userinfo'],
  ['https://:@hooks.example.com/', 'userinfo'],
  ['https://hooks.example.com/#frag', 'fragment'],
  ['https://hooks.example.com/#', 'fragment'],
  ['https://hooks.example.com/#{notificationType}', 'fragment'],
  ['https://{notificationType}.example.com/', 'placeholder-outside-path-or-query'],
  ['https://{notificationType}@hooks.example.com/', 'userinfo'],
  ['https://hooks.example.com:0/', 'invalid-port'],
  // forbidden names
  ['https://localhost/', 'forbidden-host-name'],
  ['https://LOCALHOST./', 'forbidden-host-name'],
  ['https://localhost:8443/', 'forbidden-host-name'],
  ['https://api.localhost/', 'forbidden-host-name'],
  ['https://Api.LocalHost./', 'forbidden-host-name'],
  ['https://db.internal/', 'forbidden-host-name'],
  ['https://metadata.google.internal/', 'forbidden-host-name'],
  ['https://printer.local/', 'forbidden-host-name'],
  ['https://nas.home.arpa/', 'forbidden-host-name'],
  ['https://intranet/', 'forbidden-host-name'],
  ['https://intranet./', 'forbidden-host-name'],
  ['https://under_score..example.com/', 'invalid-host-name'],
  // IPv4 literals in every spelling (the parser normalises them; the parsed hostname is judged)
  ['https://127.0.0.1/', 'non-public-address'],
  ['https://127.0.0.1./', 'non-public-address'],
  ['https://2130706433/', 'non-public-address'],
  ['https://0x7f.1/', 'non-public-address'],
  ['https://0x7f000001/', 'non-public-address'],
  ['https://0177.0.0.1/', 'non-public-address'],
  ['https://127.1/', 'non-public-address'],
  ['https://１２７.０.０.１/', 'non-public-address'],
  ['https://0/', 'non-public-address'],
  ['https://0.0.0.0/', 'non-public-address'],
  ['https://10.0.0.1/', 'non-public-address'],
  ['https://172.16.5.4/', 'non-public-address'],
  ['https://192.168.0.1/', 'non-public-address'],
  ['https://169.254.169.254/latest/meta-data/', 'non-public-address'],
  ['https://100.64.0.1/', 'non-public-address'],
  ['https://100.127.255.254/', 'non-public-address'],
  ['https://224.0.0.1/', 'non-public-address'],
  ['https://255.255.255.255/', 'non-public-address'],
  ['https://240.0.0.1/', 'non-public-address'],
  ['https://192.0.0.8/', 'non-public-address'],
  ['https://192.0.2.10/', 'non-public-address'],
  ['https://198.51.100.1/', 'non-public-address'],
  ['https://203.0.113.9/', 'non-public-address'],
  ['https://198.18.0.1/', 'non-public-address'],
  // IPv6 literals, and IPv6 that embeds a non-public IPv4
  ['https://[::1]/', 'non-public-address'],
  ['https://[::]/', 'non-public-address'],
  ['https://[fe80::1]/', 'non-public-address'],
  ['https://[fc00::1]/', 'non-public-address'],
  ['https://[fd12:3456:789a::1]/', 'non-public-address'],
  ['https://[fec0::1]/', 'non-public-address'],
  ['https://[ff02::1]/', 'non-public-address'],
  ['https://[2001:db8::1]/', 'non-public-address'],
  ['https://[3fff::1]/', 'non-public-address'],
  ['https://[2001:2::1]/', 'non-public-address'],
  ['https://[100::1]/', 'non-public-address'],
  ['https://[4000::1]/', 'non-public-address'],
  ['https://[::ffff:127.0.0.1]/', 'non-public-address'],
  ['https://[::ffff:7f00:1]/', 'non-public-address'],
  ['https://[::ffff:10.0.0.1]/', 'non-public-address'],
  ['https://[::127.0.0.1]/', 'non-public-address'], // IPv4-compatible (deprecated)
  ['https://[::ffff:0:7f00:1]/', 'non-public-address'], // IPv4-translated
  ['https://[64:ff9b::7f00:1]/', 'non-public-address'],
  ['https://[64:ff9b::127.0.0.1]/', 'non-public-address'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'non-public-address'],
  ['https://[64:ff9b:1::808:808]/', 'non-public-address'], // local-use NAT64 prefix
  ['https://[2002:7f00:1::1]/', 'non-public-address'],
  ['https://[2002:c0a8:101::1]/', 'non-public-address'],
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'non-public-address'], // Teredo, client 127.0.0.1
  // names through DNS
  ['https://intranet.example.com/', 'resolves-to-non-public-address'],
  ['https://mixed.example.com/', 'resolves-to-non-public-address'],
  ['https://mixed6.example.com/', 'resolves-to-non-public-address'],
  ['https://loopback6.example.com/', 'resolves-to-non-public-address'],
  ['https://mapped.example.com/', 'resolves-to-non-public-address'],
  ['https://metadata.example.com/', 'resolves-to-non-public-address'],
  ['https://cgnat.example.com/', 'resolves-to-non-public-address'],
  ['https://nowhere.example.com/', 'does-not-resolve'],
  ['https://servfail.example.com/', 'dns-failure'],
];

describe('webhook URL policy (rule W1)', () => {
  it('has a table of at least 50 URLs', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(50);
  });

  it.each(TABLE)('%s -> %s', async (url, expected) => {
    const verdict = await checkWebhookUrl(url, resolver);
    if (expected === 'ok') {
      expect(verdict).toMatchObject({ ok: true });
    } else {
      expect(verdict).toMatchObject({ ok: false, refusal: { code: expected } });
    }
  });

  it('judges the parsed URL: every IPv4 spelling becomes the dotted quad the client would use', () => {
    for (const raw of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/', 'https://１２７.０.０.１/']) {
      expect(new URL(raw).hostname).toBe('127.0.0.1');
      expect(checkUrlForm(raw)).toMatchObject({ ok: false, refusal: { message: expect.stringContaining('127.0.0.1 is a loopback address') } });
    }
  });

  it('returns the normalised URL and exactly the addresses that passed', async () => {
    const verdict = await checkWebhookUrl('https://DUAL.example.com./in', resolver);
    expect(verdict.ok && verdict.url.href).toBe('https://dual.example.com/in');
    expect(verdict.ok && verdict.addresses).toEqual(zone['dual.example.com']);
    const literal = await checkWebhookUrl('https://[2606:4700:4700::1111]/', resolver);
    expect(literal.ok && literal.addresses).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });

  it('never asks DNS about an IP literal or a refused name', async () => {
    const asked: string[] = [];
    const spy: HostResolver = { resolve: async (n) => (asked.push(n), []) };
    await checkWebhookUrl('https://1.1.1.1/', spy);
    await checkWebhookUrl('https://localhost/', spy);
    expect(asked).toEqual([]);
  });

  it('marks only DNS server failures as temporary', async () => {
    expect(await checkWebhookUrl('https://servfail.example.com/', resolver)).toMatchObject({ ok: false, refusal: { temporary: true } });
    expect(await checkWebhookUrl('https://nowhere.example.com/', resolver)).toMatchObject({ ok: false, refusal: { temporary: false } });
  });

  it('does not tell the caller what our resolver answered: the kind of address, not the address; the error code, not its text', async () => {
    const privateName = await checkWebhookUrl('https://metadata.example.com/', resolver);
    expect(privateName).toMatchObject({ ok: false, refusal: { code: 'resolves-to-non-public-address', message: expect.stringContaining('a link-local address') } });
    expect(JSON.stringify(privateName)).not.toContain('169.254');
    const failed = await checkWebhookUrl('https://servfail.example.com/', resolver);
    expect(failed).toMatchObject({ ok: false, refusal: { code: 'dns-failure', message: 'The host name could not be resolved (ESERVFAIL).' } });
    expect(JSON.stringify(failed)).not.toContain('10.0.0.53');
    // Nor the IPv4 address inside a NAT64 answer (what DNS64 makes of a split-horizon name).
    const nat64 = await checkWebhookUrl('https://dns64.example.com/', { resolve: async () => [{ address: '64:ff9b::a00:35', family: 6 }] });
    expect(nat64).toMatchObject({ ok: false, refusal: { message: 'The host name resolves to a NAT64 address of a private address; every address it resolves to must be public.' } });
  });

  it('accepts configured extra ranges (tests, local development) and nothing more', async () => {
    const policy = { allowedRanges: parseAddressRanges(['127.0.0.1/32', 'fd00::1']) };
    expect(judgeAddress('127.0.0.1', policy)).toEqual({ public: true });
    expect(judgeAddress('127.0.0.2', policy).public).toBe(false);
    expect(judgeAddress('::ffff:127.0.0.1', policy)).toEqual({ public: true }); // the embedded address is allowed
    expect(judgeAddress('fd00::1', policy)).toEqual({ public: true });
    expect(judgeAddress('fd00::2', policy).public).toBe(false);
    // Names stay forbidden whatever the ranges.
    expect(checkUrlForm('https://localhost/', policy)).toMatchObject({ ok: false, refusal: { code: 'forbidden-host-name' } });
    expect(() => parseAddressRanges(['127.1/8'])).toThrow(/127\.1\/8/);
    expect(() => parseAddressRanges(['nonsense'])).toThrow(/nonsense/);
  });

  it('judges Teredo by both embedded addresses', () => {
    // server 65.54.227.120, client inverted 0x3fff fdd2 ... -> 192.0.2.45 (documentation): refused
    expect(judgeAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2').public).toBe(false);
    // server 65.54.227.120, client ~(0xf7f7 0xf7f7) = 8.8.8.8: public
    expect(judgeAddress('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toEqual({ public: true });
    // server 10.0.0.1: refused whatever the client
    expect(judgeAddress('2001:0:a00:1:8000:63bf:f7f7:f7f7').public).toBe(false);
  });

  it('replaces the placeholder in the path and the query, nowhere else', () => {
    const form = checkUrlForm('https://hooks.example.com/in/{notificationType}?t={notificationType}&x=%7Bkeep%7D');
    if (!form.ok) throw new Error('refused');
    const expanded = expandPlaceholder(form.url, 'order-status-updated');
    expect(expanded.href).toBe('https://hooks.example.com/in/order-status-updated?t=order-status-updated&x=%7Bkeep%7D');
    expect(expanded.hostname).toBe(form.url.hostname);
    expect(() => expandPlaceholder(form.url, '../x')).toThrow();
  });

  it('replaces only the placeholder as written, braces as sent or percent-encoded, the same way in path and query', () => {
    const expanded = (url: string) => {
      const form = checkUrlForm(url);
      if (!form.ok) throw new Error('refused');
      return expandPlaceholder(form.url, 'order-created').href;
    };
    expect(expanded('https://hooks.example.com/a/{NotificationType}/{notificationtype}?x={NOTIFICATIONTYPE}')).toBe(
      'https://hooks.example.com/a/%7BNotificationType%7D/%7Bnotificationtype%7D?x={NOTIFICATIONTYPE}',
    );
    expect(expanded('https://hooks.example.com/%7bnotificationType%7d/?a=%7BnotificationType%7D&b=%7bnotificationType%7d')).toBe(
      'https://hooks.example.com/order-created/?a=order-created&b=order-created',
    );
  });
});
