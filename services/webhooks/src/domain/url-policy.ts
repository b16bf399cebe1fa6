import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Rule W1 of the Channel API: what a webhook URL must be, checked at registration and again
 * before every delivery attempt (with fresh DNS). Everything here is pure except the resolver,
 * which is injected (`HostResolver`), so the whole rule is unit-tested with a table.
 *
 * The parsed WHATWG `URL` is what gets judged, never the string: the parser already turns every
 * numeric IPv4 spelling (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, full-width digits) into
 * a dotted quad, lower-cases names and encodes IDNs, and the very same object is what the HTTP
 * client is given.
 */

/** Longest URL accepted (spec section 8), in characters (code points). */
export const URL_MAX_LENGTH = 200;

/** Replaced by the notification type at delivery; allowed only in the path or the query. */
export const NOTIFICATION_TYPE_PLACEHOLDER = '{notificationType}';
/**
 * The placeholder in a parsed URL: as sent, or with its braces percent-encoded (the parser encodes
 * them in a path; a client may have encoded them in a query). The name is matched exactly.
 */
const PLACEHOLDER = /\{notificationType\}|%7[Bb]notificationType%7[Dd]/g;

/** Why a URL was refused. Stable codes for logs and the delivery log; `message` is for people. */
export type UrlRefusalCode =
  | 'not-a-url'
  | 'too-long'
  | 'not-https'
  | 'userinfo'
  | 'fragment'
  | 'placeholder-outside-path-or-query'
  | 'invalid-port'
  | 'invalid-host-name'
  | 'forbidden-host-name'
  | 'non-public-address'
  | 'does-not-resolve'
  | 'resolves-to-non-public-address'
  | 'dns-failure';

export interface UrlRefusal {
  code: UrlRefusalCode;
  message: string;
  /**
   * True when trying again later could pass (a DNS server failure). Every other refusal stands
   * until the URL or its DNS records change.
   */
  temporary: boolean;
}

/** An address a name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its A and AAAA records; an empty list when the name has none. */
export interface HostResolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/** A CIDR range that counts as public (for tests and local development only). */
export type AddressRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface AddressPolicy {
  /** Extra ranges accepted although not public (WEBHOOK_ALLOW_PRIVATE_RANGES); empty in production. */
  allowedRanges: readonly AddressRange[];
}

export const STRICT_POLICY: AddressPolicy = { allowedRanges: [] };

/** The host part of an accepted URL. */
export type UrlHost = { kind: 'name'; name: string } | { kind: 'ip'; address: string; family: 4 | 6 };

export type StaticVerdict = { ok: true; url: URL; host: UrlHost } | { ok: false; refusal: UrlRefusal };

/** A URL that passed W1 in full, with the addresses that passed (the only ones to connect to). */
export type UrlVerdict = { ok: true; url: URL; host: UrlHost; addresses: ResolvedAddress[] } | { ok: false; refusal: UrlRefusal };

export type AddressVerdict = { public: true } | { public: false; reason: string };

/**
 * Name suffixes that never denote a public host: the spec's `localhost`, `*.localhost`,
 * `*.internal`, `*.local`, plus the other special-use names that never resolve publicly
 * (RFC 6761 `test`, `invalid`, `example`; RFC 8375 `home.arpa`; `.onion`, `.alt`) and the
 * conventional `localdomain`.
 */
const FORBIDDEN_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'test', 'invalid', 'example', 'onion', 'alt'];

/** One DNS label of a host name as the URL parser leaves it (lower case, ASCII, punycode). */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Control characters and white space: the URL parser would silently drop or trim some of them. */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/;

function refuse(code: UrlRefusalCode, message: string, temporary = false): { ok: false; refusal: UrlRefusal } {
  return { ok: false, refusal: { code, message, temporary } };
}

/**
 * Every check of W1 that needs no DNS: the URL's form, its length, its scheme, userinfo,
 * fragment, placeholder position, and its host (a forbidden or malformed name, or an IP literal
 * that is not public).
 */
export function checkUrlForm(raw: string, policy: AddressPolicy = STRICT_POLICY): StaticVerdict {
  if (typeof raw !== 'string' || raw.length === 0) return refuse('not-a-url', 'Must be an absolute https:// URL.');
  if ([...raw].length > URL_MAX_LENGTH) return refuse('too-long', `Must be at most ${URL_MAX_LENGTH} characters.`);
  if (INVISIBLE.test(raw)) return refuse('not-a-url', 'Must not contain spaces or control characters.');
  // The parser would also accept `https:host` or `https:\\host`; the contract asks for https://.
  if (!/^https:\/\//i.test(raw)) return refuse('not-https', 'Must be an absolute https:// URL.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not-a-url', 'Must be an absolute https:// URL.');
  }
  if (url.protocol !== 'https:') return refuse('not-https', 'Must be an absolute https:// URL.');
  // An empty userinfo (`https://@host/`, `https://:@host/`) leaves both empty once parsed, but the
  // URL as given, and stored, still has one: the raw authority (up to a `/`, `\`, `?` or `#`) decides.
  const rawAuthority = raw.slice('https://'.length).split(/[/\\?#]/)[0] ?? '';
  if (url.username !== '' || url.password !== '' || rawAuthority.includes('@')) {
    return refuse('userinfo', 'Must not contain a user name or password.');
  }
  // `https://host/#` has an empty `hash` but still a fragment; the serialisation shows it.
  if (url.href.includes('#')) return refuse('fragment', 'Must not contain a fragment (#).');
  if (url.port === '0') return refuse('invalid-port', 'Must not use port 0.');

  let hostname = url.hostname;
  if (hostname.includes('{') || hostname.includes('}')) {
    return refuse('placeholder-outside-path-or-query', `The ${NOTIFICATION_TYPE_PLACEHOLDER} placeholder may appear only in the path or the query.`);
  }
  if (hostname.startsWith('[')) {
    const address = hostname.slice(1, -1);
    const verdict = judgeAddress(address, policy);
    if (!verdict.public) return refuse('non-public-address', `Must have a public host; ${address} is ${verdict.reason}.`);
    return { ok: true, url, host: { kind: 'ip', address, family: 6 } };
  }
  if (isIP(hostname) === 4) {
    const verdict = judgeAddress(hostname, policy);
    if (!verdict.public) return refuse('non-public-address', `Must have a public host; ${hostname} is ${verdict.reason}.`);
    return { ok: true, url, host: { kind: 'ip', address: hostname, family: 4 } };
  }

  // `example.com.` and `example.com` are the same name; the URL keeps the usual spelling, which is
  // also what TLS verifies the certificate against.
  if (hostname.endsWith('.')) {
    hostname = hostname.slice(0, -1);
    url.hostname = hostname;
  }
  const labels = hostname.split('.');
  if (hostname.length === 0 || hostname.length > 253 || !labels.every((l) => LABEL.test(l))) {
    return refuse('invalid-host-name', 'Must have a valid host name.');
  }
  for (const suffix of FORBIDDEN_SUFFIXES) {
    if (hostname === suffix || hostname.endsWith(`.${suffix}`)) {
      return refuse('forbidden-host-name', `Must have a public host name (not ${suffix === 'localhost' ? 'localhost' : `*.${suffix}`}).`);
    }
  }
  if (labels.length < 2) return refuse('forbidden-host-name', 'Must have a public host name (a single-label name is not one).');
  // The last label of a name is never all digits; the URL parser would have read it as IPv4.
  if (/^\d+$/.test(labels[labels.length - 1]!)) return refuse('invalid-host-name', 'Must have a valid host name.');
  return { ok: true, url, host: { kind: 'name', name: hostname } };
}

/**
 * The whole of W1: the form checks, then DNS. A name must resolve (A or AAAA) and EVERY address
 * must be public; the addresses returned are the only ones delivery may connect to.
 */
export async function checkWebhookUrl(raw: string, resolver: HostResolver, policy: AddressPolicy = STRICT_POLICY): Promise<UrlVerdict> {
  const form = checkUrlForm(raw, policy);
  if (!form.ok) return form;
  if (form.host.kind === 'ip') return { ...form, addresses: [{ address: form.host.address, family: form.host.family }] };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver.resolve(form.host.name);
  } catch (err) {
    // The error's code only: its message may name what our own resolver is and how it answered.
    const code = (err as NodeJS.ErrnoException).code;
    return refuse('dns-failure', `The host name could not be resolved${typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? ` (${code})` : ''}.`, true);
  }
  const judged = judgeResolved(addresses, policy);
  if (!judged.ok) return judged;
  return { ...form, addresses: judged.addresses };
}

/** Judges what a name resolved to: at least one address, and every one public. */
export function judgeResolved(
  addresses: readonly ResolvedAddress[],
  policy: AddressPolicy = STRICT_POLICY,
): { ok: true; addresses: ResolvedAddress[] } | { ok: false; refusal: UrlRefusal } {
  if (addresses.length === 0) return refuse('does-not-resolve', 'The host name does not resolve.');
  for (const a of addresses) {
    const verdict = judgeAddress(a.address, policy);
    if (!verdict.public) {
      // Not the address itself: what our resolver answers for a name is not the caller's to map.
      return refuse('resolves-to-non-public-address', `The host name resolves to ${verdict.reason}; every address it resolves to must be public.`);
    }
  }
  return { ok: true, addresses: addresses.map((a) => ({ address: a.address, family: a.family })) };
}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as AddressRange;
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as AddressRange;

/** Names for ipaddr.js ranges, for messages. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (CGNAT) address',
  private: 'a private address',
  reserved: 'a reserved address',
  as112: 'a reserved (AS112) address',
  amt: 'a reserved (AMT) address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  rfc6145: 'an IPv4-translated address',
  benchmarking: 'a benchmarking address',
  as112v6: 'a reserved (AS112) address',
  deprecatedOrchid: 'a reserved (ORCHID) address',
  orchid2: 'a reserved (ORCHID) address',
  droneRemoteIdProtocolEntityTags: 'a reserved (DRIP) address',
  segmentRouting: 'a segment-routing address',
};

/**
 * Whether one IP address is public. IPv4 must be plain unicast (ipaddr.js classifies every
 * special-purpose range: private, loopback, link-local, shared, multicast, broadcast, reserved,
 * documentation, benchmarking, unspecified). IPv6 must be global unicast (2000::/3) outside
 * every special range; IPv6 forms that carry an IPv4 address are judged by that address too:
 * IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` (bits 16-47) and Teredo
 * `2001::/32` (server bits 32-63, client the inverted last 32 bits). The local-use NAT64 prefix
 * `64:ff9b:1::/48` is local by definition and never public.
 */
export function judgeAddress(address: string, policy: AddressPolicy = STRICT_POLICY): AddressVerdict {
  const family = isIP(address);
  if (family === 0) return { public: false, reason: 'not an IP address' };
  const parsed = ipaddr.parse(address);
  if (isAllowed(parsed, policy)) return { public: true };
  if (parsed.kind() === 'ipv4') return judgeIPv4(parsed as ipaddr.IPv4, policy);
  return judgeIPv6(parsed as ipaddr.IPv6, policy);
}

function isAllowed(addr: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy): boolean {
  for (const [net, bits] of policy.allowedRanges) {
    if (net.kind() === addr.kind() && addr.match(net as never, bits)) return true;
  }
  return false;
}

function judgeIPv4(addr: ipaddr.IPv4, policy: AddressPolicy): AddressVerdict {
  if (isAllowed(addr, policy)) return { public: true };
  const range = addr.range();
  if (range === 'unicast') return { public: true };
  return { public: false, reason: RANGE_NAMES[range] ?? `a special-purpose address (${range})` };
}

function judgeIPv6(addr: ipaddr.IPv6, policy: AddressPolicy): AddressVerdict {
  const range = addr.range();
  const embedded = (what: string, v4: ipaddr.IPv4): AddressVerdict => {
    const verdict = judgeIPv4(v4, policy);
    // The kind of the embedded address, not the address: a name's AAAA answer (DNS64) must not map it.
    return verdict.public ? verdict : { public: false, reason: `${what} of ${verdict.reason}` };
  };
  const bytes = addr.toByteArray();
  const v4At = (offset: number, invert = false) =>
    new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => (invert ? ~b & 0xff : b)));
  switch (range) {
    case 'ipv4Mapped':
      return embedded('an IPv4-mapped address', v4At(12));
    case 'rfc6052':
      if (!addr.match(NAT64_WELL_KNOWN)) return { public: false, reason: 'a local-use NAT64 address (64:ff9b:1::/48)' };
      return embedded('a NAT64 address', v4At(12));
    case '6to4':
      return embedded('a 6to4 address', v4At(2));
    case 'teredo': {
      const server = embedded('a Teredo address (server)', v4At(4));
      return server.public ? embedded('a Teredo address (client)', v4At(12, true)) : server;
    }
    case 'unicast':
      // ipaddr.js calls everything outside its special list unicast, including IPv4-compatible
      // `::a.b.c.d` and unassigned space; only 2000::/3 is allocated global unicast.
      if (!addr.match(GLOBAL_UNICAST)) return { public: false, reason: 'outside global unicast space (2000::/3)' };
      return { public: true };
    default:
      return { public: false, reason: RANGE_NAMES[range] ?? `a special-purpose address (${range})` };
  }
}

/**
 * Parses `WEBHOOK_ALLOW_PRIVATE_RANGES` entries (`127.0.0.1/32`, `fd00::/8`, or a bare address).
 * @throws Error naming the first entry that is not a CIDR or address
 */
export function parseAddressRanges(entries: readonly string[]): AddressRange[] {
  return entries.map((entry) => {
    try {
      const [address = '', bits] = entry.split('/');
      // Only canonical spellings: ipaddr.js would also read legacy forms such as `127.1`.
      if (!isIP(address)) throw new Error('not an address');
      if (bits !== undefined) return ipaddr.parseCIDR(entry) as AddressRange;
      const addr = ipaddr.parse(address);
      return [addr, addr.kind() === 'ipv4' ? 32 : 128] as AddressRange;
    } catch {
      throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
  });
}

/**
 * The URL to send a notification to: the registered URL with the placeholder replaced by the
 * notification type in the path and the query. Only `[a-z-]` goes in, so the host, and
 * therefore the W1 verdict on it, cannot change.
 */
export function expandPlaceholder(url: URL, notificationType: string): URL {
  if (!/^[a-z-]+$/.test(notificationType)) throw new Error(`Unexpected notification type ${notificationType}`);
  const expanded = new URL(url.href);
  expanded.pathname = url.pathname.replace(PLACEHOLDER, notificationType);
  expanded.search = url.search.replace(PLACEHOLDER, notificationType);
  return expanded;
}
