import { isIP, isIPv4 } from 'node:net';
import type { Request } from 'express';

/**
 * The client address for the failed-request limit (spec section 5 point 8): the connecting
 * address, or what `X-Forwarded-For` says only when the connection comes from a trusted proxy
 * (express `trust proxy`, set from TRUSTED_PROXIES). IPv4-mapped IPv6 addresses count as IPv4,
 * so one client is one counter whichever way the socket was opened. A forwarded value that is no
 * address (`X-Forwarded-For: not-an-ip-7`) names nobody: the connecting address counts instead, or
 * each made-up value would be a fresh counter.
 */
export function clientIp(req: Request): string {
  const forwarded = req.ip;
  const ip = (forwarded !== undefined && isIP(forwarded) !== 0 ? forwarded : req.socket.remoteAddress) ?? 'unknown';
  if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7);
  return ip;
}
