import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@pf/platform/logging';
import { bearerToken } from '@pf/platform/identity';
import { decideAccess, type AccessFacts, type Credentials, type Principal } from '../domain/access';
import { budgetHeaders, type WindowCount } from '../domain/rate-window';
import { clientIp } from '../http/client-ip';
import { requestIdOf } from '../http/request-context';
import type { RateLimiter } from '../rate-limit/rate-limiter';
import type { AccessRules } from './access-rules';
import { awaitAdmissionBeforeAnswering, type Admission, type ReadAheadLedger } from './read-ahead';
import { refusalResponse } from './refusals';
import { tokenSha256, type ChannelTokenChecks } from './token-check';

export interface AuthenticateDeps {
  limiter: RateLimiter;
  tokenChecks: ChannelTokenChecks;
  rules: AccessRules;
  logger: Logger;
  /** Reads may go upstream ahead of their admission (absent: never). */
  readAhead?: ReadAheadLedger;
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
 * asks for, and answers what it decides: at once, or for a read ahead of its admission (see
 * domain/read-ahead.ts) when the request is answered (`settleAdmission`).
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

    // A read with cached credentials that pass checks 2-6 goes on while check 7 (with check 1) is
    // on its way to the store; its answer waits for the same decision as below (see read-ahead.ts).
    const provisional = deps.readAhead && principalIfCounted(facts);
    if (provisional && deps.readAhead!.mayReadAhead(req.method, provisional.tokenId)) {
      const ledger = deps.readAhead!;
      ledger.started(provisional.tokenId);
      const admission = decide(deps, facts, ip, res).finally(() => ledger.settled(provisional.tokenId));
      awaitAdmissionBeforeAnswering(res, admission);
      res.locals.principal = provisional;
      next();
      return;
    }

    const outcome = await decide(deps, facts, ip, res);
    res.set(outcome.headers);
    if (outcome.refusal !== undefined) {
      next(outcome.refusal);
      return;
    }
    res.locals.principal = outcome.principal;
    next();
  };
}

/**
 * Gathers the facts `decideAccess` asks for until it grants or refuses.
 *
 * Fetching is arranged so a granted request with cached credentials costs one Redis round trip:
 * `admit` checks the address's failed-request count and counts the token in one atomic step, which
 * is check 1 followed by check 7, exactly as if done apart. Without cached credentials the
 * address is checked first, so a blocked address never reaches the accounts lookup.
 */
async function decide(deps: AuthenticateDeps, facts: AccessFacts, ip: string, res: Response): Promise<Admission & { principal?: Principal }> {
  const { credentials } = facts;
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
          const tokenId = facts.tokenCheck!.token!.id;
          const sentAtMs = deps.readAhead?.now() ?? 0;
          const admitted = await deps.limiter.admit(ip, tokenId);
          deps.readAhead?.sighted(tokenId, admitted, sentAtMs);
          facts.failedAuth = admitted.failedAuth;
          if (admitted.tokenBudget) facts.tokenBudget = admitted.tokenBudget;
        }
        continue;

      case 'refuse': {
        if (decision.status === 401) {
          // Only requests answered 401 use the address's budget; once it is spent they get 429.
          const failure = await deps.limiter.recordFailedAuth(ip);
          if (!failure.recorded) {
            facts.failedAuth = failure.failedAuth;
            continue;
          }
        }
        const { problem, headers } = refusalResponse(decision.refusal);
        deps.logger.debug({ ip, reason: decision.refusal.reason, channelId: facts.pathChannelId }, 'request refused');
        return { headers, refusal: problem };
      }

      case 'grant':
        return { headers: budgetHeaders(decision.tokenBudget), principal: decision.principal };
    }
  }
}

/** Any known token budget stands in for one not yet counted. */
const UNCOUNTED: WindowCount = { limit: 1, count: 0, nowMs: 0, resetAtMs: 1 };

/** True when the known facts pass checks 2-6, so check 1 can be made together with counting (check 7). */
function wouldCountToken(facts: AccessFacts): boolean {
  if (!facts.tokenCheck) return false;
  const probe = decideAccess({ ...facts, failedAuth: UNCOUNTED });
  return probe.outcome === 'need' && probe.fact === 'token-budget';
}

/**
 * The principal the request acts as if checks 1 and 7 pass: known when the facts at hand pass
 * checks 2-6 and only the counting step is left (`wouldCountToken`).
 */
function principalIfCounted(facts: AccessFacts): Principal | undefined {
  if (facts.failedAuth || facts.tokenBudget || !wouldCountToken(facts)) return undefined;
  const probe = decideAccess({ ...facts, failedAuth: UNCOUNTED, tokenBudget: UNCOUNTED });
  return probe.outcome === 'grant' ? probe.principal : undefined;
}
