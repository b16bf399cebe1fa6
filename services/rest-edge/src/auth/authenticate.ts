import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@pf/platform/logging';
import { bearerToken } from '@pf/platform/identity';
import { decideAccess, type AccessFacts, type Credentials, type Principal } from '../domain/access';
import { budgetHeaders, failuresExhausted } from '../domain/rate-window';
import { clientIp } from '../http/client-ip';
import { requestIdOf } from '../http/request-context';
import type { RateLimiter } from '../rate-limit/rate-limiter';
import type { AccessRules } from './access-rules';
import { refusalResponse } from './refusals';
import { tokenSha256, type ChannelTokenChecks } from './token-check';

export interface AuthenticateDeps {
  limiter: RateLimiter;
  tokenChecks: ChannelTokenChecks;
  rules: AccessRules;
  logger: Logger;
}

/** What a granted request carries to its handler. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('No authenticated principal on this request');
  return principal;
}

export function credentialsOf(authorization: string | undefined): Credentials {
  const token = bearerToken(authorization);
  return token ? { kind: 'bearer', tokenSha256: tokenSha256(token) } : { kind: 'absent' };
}

/**
 * Authentication of every `/v1/channels/{channelId}/...` request, in the order of spec section 5
 * point 7. The order itself lives in `decideAccess`; this middleware only fetches the facts it
 * asks for, and answers what it decides.
 *
 * Fetching is arranged so a granted request with cached credentials costs one Redis round trip:
 * `admit` checks the address's failed-request count and counts the token in one atomic step, which
 * is check 1 followed by check 7, exactly as if done apart. Without cached credentials the
 * address is checked first, so a blocked address never reaches the accounts lookup.
 */
export function authenticate(deps: AuthenticateDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ip = clientIp(req);
    const credentials = credentialsOf(req.headers.authorization);
    const facts: AccessFacts = {
      pathChannelId: String(req.params.channelId),
      rule: deps.rules.ruleFor(req.method, req.path),
      credentials,
    };
    if (credentials.kind === 'bearer') {
      const cached = deps.tokenChecks.cached(facts.pathChannelId, credentials.tokenSha256);
      if (cached) facts.tokenCheck = cached;
    }

    for (;;) {
      const decision = decideAccess(facts);
      switch (decision.outcome) {
        case 'need':
          if (decision.fact === 'failed-auth' && !wouldCountToken(facts)) {
            facts.failedAuth = await deps.limiter.peekFailedAuth(ip);
          } else if (decision.fact === 'token-check' && credentials.kind === 'bearer') {
            facts.tokenCheck = await deps.tokenChecks.lookup(facts.pathChannelId, credentials.tokenSha256, requestIdOf(res));
          } else {
            // token-budget, or failed-auth with the token budget in the same atomic step
            const admitted = await deps.limiter.admit(ip, facts.tokenCheck!.token!.id);
            facts.failedAuth = admitted.failedAuth;
            if (admitted.tokenBudget) facts.tokenBudget = admitted.tokenBudget;
          }
          continue;

        case 'refuse': {
          if (decision.status === 401) {
            // Only requests answered 401 use the address's budget; the one that exceeds it, and
            // every request after, get 429.
            const failure = await deps.limiter.recordFailedAuth(ip);
            if (!failure.recorded || failuresExhausted(failure.failedAuth)) {
              facts.failedAuth = failure.failedAuth;
              continue;
            }
          }
          const { problem, headers } = refusalResponse(decision.refusal);
          res.set(headers);
          deps.logger.debug({ ip, reason: decision.refusal.reason, channelId: facts.pathChannelId }, 'request refused');
          next(problem);
          return;
        }

        case 'grant':
          res.locals.principal = decision.principal;
          res.set(budgetHeaders(decision.tokenBudget));
          next();
          return;
      }
    }
  };
}

/** True when the known facts pass checks 2-6, so check 1 can be made together with counting (check 7). */
function wouldCountToken(facts: AccessFacts): boolean {
  if (!facts.tokenCheck) return false;
  const probe = decideAccess({ ...facts, failedAuth: { limit: 1, count: 0, nowMs: 0, resetAtMs: 1 } });
  return probe.outcome === 'need' && probe.fact === 'token-budget';
}

/**
 * Spec section 8: once an address spent its failed-authentication budget, *every* request from it
 * answers 429 until the window ends, not only the channel API's (which `authenticate` refuses
 * itself, as check 1): the contract documents, unknown paths. Health routes are mounted before it.
 */
export function refuseBlockedAddresses(limiter: RateLimiter, channelPath: RegExp): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (channelPath.test(req.path)) {
      next();
      return;
    }
    try {
      const blocked = await blockedAddressRefusal(limiter, req);
      if (!blocked) {
        next();
        return;
      }
      res.set(blocked.headers);
      next(blocked.problem);
    } catch (err) {
      next(err);
    }
  };
}

/** The 429 (with its headers) of an address over its failed-request limit, or undefined. */
export async function blockedAddressRefusal(limiter: RateLimiter, req: Request): Promise<ReturnType<typeof refusalResponse> | undefined> {
  const failedAuth = await limiter.peekFailedAuth(clientIp(req));
  return failuresExhausted(failedAuth) ? refusalResponse({ reason: 'failed-auth-limit', window: failedAuth }) : undefined;
}

/**
 * A channel id in the path that does not even decode (a bad percent-escape) names no channel: it
 * is answered by authentication like any unknown channel (401, counted against the address, after
 * the address's own check), not by the router's decoding error. Decodable paths pass untouched.
 */
export function undecodableChannelIds(authenticateRequest: RequestHandler, channelSegment: RegExp): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const raw = channelSegment.exec(req.path)?.[1];
    if (raw === undefined || decodes(raw)) {
      next();
      return;
    }
    req.params = { channelId: raw };
    // Its promise is settled here: a rejection (Redis unreachable) goes to the error middleware (a
    // 500), never unhandled, which would end the process.
    Promise.resolve(authenticateRequest(req, res, next)).catch(next);
  };
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
