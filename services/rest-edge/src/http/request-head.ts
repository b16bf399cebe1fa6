import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Problem } from '@pf/platform/problems';

/**
 * RFC 3986's host (an IP literal in brackets, or a reg-name: letters, digits, `-._~`, the
 * sub-delimiters and percent-escapes; an IPv4 address is one) with an optional port.
 */
const HOST_AND_PORT = /^(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::[0-9]{0,5})?$/;

/** An absolute-form request target (`GET http://api.example.com/v1/... HTTP/1.1`): its authority and the origin-form rest. */
export function absoluteForm(target: string): { authority: string; originForm: string } | undefined {
  const match = /^https?:\/\/([^/?#]*)([^#]*)/i.exec(target);
  if (!match) return undefined;
  const rest = match[2] ?? '';
  return { authority: match[1] ?? '', originForm: rest.startsWith('/') ? rest : `/${rest}` };
}

/** What decides whether a request's head can be believed. */
export interface RequestHeadFacts {
  httpVersion: string;
  /** How many `Host` header lines the request has. */
  hostLines: number;
  /** The host the request is addressed to, as express reads it (`Host`, or `X-Forwarded-Host` from a trusted proxy). */
  host: string | undefined;
  /** How many `Authorization` header lines the request has. */
  authorizationLines: number;
}

/**
 * Why the request's head cannot be believed, or undefined when it can. RFC 9112 section 3.2: an
 * HTTP/1.1 request without `Host`, with more than one, or with an invalid value is answered 400.
 * The host also starts every link the edge writes when PUBLIC_BASE_URL is not set, so a value that
 * is not a host (`a"b/c?d#e`) must never reach them. `Authorization` takes one value (RFC 9110
 * section 11.6.2); of two, Node keeps the first, so which credentials count would be a guess.
 */
export function requestHeadRefusal(facts: RequestHeadFacts): string | undefined {
  if (facts.authorizationLines > 1) return 'The request has more than one Authorization header.';
  if (facts.hostLines > 1) return 'The request has more than one Host header.';
  if (facts.host === undefined) return facts.httpVersion === '1.0' ? undefined : 'The request has no Host header.';
  if (!HOST_AND_PORT.test(facts.host)) return 'The request host is not a valid host[:port].';
  return undefined;
}

/** A refusal that comes before this one (an address over its failed-request limit: section 5.7). */
export type EarlierRefusal = (req: Request) => Promise<{ problem: Problem; headers: Record<string, string> } | undefined>;

/**
 * The edge's answer to a request head it cannot believe (`requestHeadRefusal`), before anything
 * else reads it, unless `earlier` refuses the request first. An absolute-form target is served as
 * the origin-form one, its authority taking the place of `Host` (RFC 9112 section 3.2.2).
 */
export const refuseMalformedHead = (earlier: EarlierRefusal): RequestHandler => async (req: Request, res: Response, next: NextFunction) => {
  let hostLines = 0;
  let authorizationLines = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (name === 'host') hostLines++;
    else if (name === 'authorization') authorizationLines++;
  }
  const absolute = absoluteForm(req.originalUrl);
  if (absolute) {
    // Both: the router reads `url`, the request validator `originalUrl`.
    req.url = req.originalUrl = absolute.originForm;
    req.headers.host = absolute.authority;
    hostLines = 1;
  }
  const refusal = requestHeadRefusal({ httpVersion: req.httpVersion, hostLines, host: req.host, authorizationLines });
  if (!refusal) {
    next();
    return;
  }
  try {
    const first = await earlier(req);
    if (first) res.set(first.headers);
    next(first?.problem ?? new Problem('bad-request', { detail: refusal }));
  } catch (err) {
    next(err);
  }
};
