import { isIPv4 } from 'node:net';
import type { Request } from 'express';

/**
 * The client address for the failed-request limit (spec section 5 point 8): the connecting
 * address, or what `X-Forwarded-For` says only when the connection comes from a trusted proxy
 * (express `trust proxy`, set from TRUSTED_PROXIES). IPv4-mapped IPv6 addresses count as IPv4,
 * so one client is one counter whichever way the socket was opened.
 */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7);
  return ip;
}
