import { absoluteForm, requestHeadRefusal } from './request-head';

describe('requestHeadRefusal (RFC 9112 section 3.2, RFC 9110 section 11.6.2)', () => {
  const facts = (host: string | undefined, more: { httpVersion?: string; hostLines?: number; authorizationLines?: number } = {}) => ({
    httpVersion: more.httpVersion ?? '1.1',
    hostLines: more.hostLines ?? (host === undefined ? 0 : 1),
    host,
    authorizationLines: more.authorizationLines ?? 1,
  });

  it('believes a host name, an IPv4 or IPv6 address, with or without a port', () => {
    for (const host of ['api.example.com', 'api.example.com:8443', '127.0.0.1:8080', '[::1]:8080', '[2001:db8::1]', 'xn--bcher-kva.example', 'a%41b']) {
      expect(requestHeadRefusal(facts(host))).toBeUndefined();
    }
  });

  it('refuses an HTTP/1.1 request without Host; HTTP/1.0 needs none', () => {
    expect(requestHeadRefusal(facts(undefined))).toMatch(/no Host/);
    expect(requestHeadRefusal(facts(undefined, { httpVersion: '1.0' }))).toBeUndefined();
  });

  it('refuses more than one Authorization line (which would count is a guess); none is for authentication to answer', () => {
    expect(requestHeadRefusal(facts('a.example', { authorizationLines: 2 }))).toMatch(/more than one Authorization/);
    expect(requestHeadRefusal(facts('a.example', { authorizationLines: 0 }))).toBeUndefined();
  });

  it('refuses more than one Host line', () => {
    expect(requestHeadRefusal(facts('a.example', { hostLines: 2 }))).toMatch(/more than one/);
  });

  it('refuses what is not a host[:port]: it would start every link of the answer', () => {
    for (const host of ['a"b/c?d#e', 'a b', 'a/b', 'a?b', 'a#b', '[::1', 'a:b', 'a:123456', '%zz', 'a@b', '<x>']) {
      expect(requestHeadRefusal(facts(host))).toMatch(/not a valid/);
    }
  });
});

describe('absoluteForm', () => {
  it('splits an absolute-form target into its authority and the origin-form rest', () => {
    expect(absoluteForm('http://api.example.com:8080/v1/channels/a-b/?x=1')).toEqual({ authority: 'api.example.com:8080', originForm: '/v1/channels/a-b/?x=1' });
    expect(absoluteForm('HTTPS://h?x=1')).toEqual({ authority: 'h', originForm: '/?x=1' });
    expect(absoluteForm('http://h')).toEqual({ authority: 'h', originForm: '/' });
  });

  it('leaves an origin-form target alone', () => {
    expect(absoluteForm('/v1/channels/a-b/')).toBeUndefined();
    expect(absoluteForm('//h/x')).toBeUndefined();
  });
});
