import { Problem } from '@pf/platform/problems';
import type { Refusal } from '../domain/access';
import { exceededHeaders } from '../domain/rate-window';

/**
 * One 401 for a missing token, a bad token and an unknown channel (spec section 5 point 5):
 * identical bodies, so a client cannot tell whether a channel exists.
 */
export function unauthenticated(): Problem {
  return new Problem('unauthenticated', { detail: 'The API token is missing or not valid for this channel.' });
}

/** The problem and headers that answer a refused request. */
export function refusalResponse(refusal: Refusal): { problem: Problem; headers: Record<string, string> } {
  switch (refusal.reason) {
    case 'unauthenticated':
      return { problem: unauthenticated(), headers: {} };
    case 'failed-auth-limit':
      return {
        problem: new Problem('rate-limited', {
          detail: 'Too many failed authentication attempts from this address: every request from it is refused until the rate-limit window ends.',
        }),
        headers: exceededHeaders(refusal.window),
      };
    case 'token-rate-limit':
      return {
        problem: new Problem('rate-limited', {
          detail: `The rate limit of ${refusal.window.limit} requests per window for this token is exhausted.`,
        }),
        headers: exceededHeaders(refusal.window),
      };
    case 'channel-not-owned':
      return { problem: Problem.notFound('This channel could not be found for this token.'), headers: {} };
    case 'channel-inactive':
      return {
        problem: new Problem('channel-inactive', { detail: 'The channel is inactive: its API access is revoked.' }),
        headers: {},
      };
    case 'standard-channel':
      return {
        problem: new Problem('standard-channel', {
          detail: "The team's Standard channel cannot be used through the API; use the token of an integration channel.",
        }),
        headers: {},
      };
  }
}
