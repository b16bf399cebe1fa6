import type { Response } from 'express';
import type { WindowCount } from '../domain/rate-window';
import { mayReadAhead, sightingOf, type BudgetSighting } from '../domain/read-ahead';

/**
 * What this edge knows for `mayReadAhead`: each token's last budget sighting and its reads ahead
 * in flight. Kept for at most `maxTokens` tokens (the oldest sighting goes first); a forgotten
 * token only waits for its admission again.
 */
export class ReadAheadLedger {
  private readonly sightings = new Map<string, BudgetSighting>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly maxTokens: number,
    private readonly clock: () => number = Date.now,
  ) {}

  now(): number {
    return this.clock();
  }

  mayReadAhead(method: string, tokenId: string): boolean {
    return mayReadAhead({ method, sighting: this.sightings.get(tokenId), inFlight: this.inFlight.get(tokenId) ?? 0, nowMs: this.clock() });
  }

  /** The reply to an admission of the token sent at `sentAtMs` (this edge's clock). */
  sighted(tokenId: string, reply: { failedAuth: WindowCount; tokenBudget?: WindowCount }, sentAtMs: number): void {
    const sighting = sightingOf(reply, sentAtMs);
    const last = this.sightings.get(tokenId);
    // Replies may arrive out of order: a count never goes back within its window.
    if (last && last.window.resetAtMs === sighting.window.resetAtMs && last.window.count > sighting.window.count) return;
    this.sightings.delete(tokenId);
    if (this.sightings.size >= this.maxTokens) this.sightings.delete(this.sightings.keys().next().value!);
    this.sightings.set(tokenId, sighting);
  }

  started(tokenId: string): void {
    this.inFlight.set(tokenId, (this.inFlight.get(tokenId) ?? 0) + 1);
  }

  settled(tokenId: string): void {
    const n = (this.inFlight.get(tokenId) ?? 1) - 1;
    if (n > 0) this.inFlight.set(tokenId, n);
    else this.inFlight.delete(tokenId);
  }
}

/** How a request read ahead of its admission is finally answered: as granted, or refused. */
export interface Admission {
  /** The budget headers of a grant, or the headers of the refusal. */
  headers: Record<string, string>;
  /** The problem that answers a refusal. */
  refusal?: unknown;
}

/** Marks the request as read ahead: its answer waits for `admission`. */
export function awaitAdmissionBeforeAnswering(res: Response, admission: Promise<Admission>): void {
  // Settled by whoever answers; until then a failure must not count as unhandled.
  admission.catch(() => undefined);
  res.locals.admission = admission;
}

/**
 * Call before answering a request (its handler's answer, or any error): for a request read ahead
 * of its admission, waits for it and sets its headers; a refusal is thrown, to be answered in the
 * place of anything else, as is a failure of the rate-limit store. For any other request nothing.
 */
export async function settleAdmission(res: Response): Promise<void> {
  const pending = res.locals.admission as Promise<Admission> | undefined;
  if (!pending) return;
  res.locals.admission = undefined;
  const admission = await pending;
  res.set(admission.headers);
  if (admission.refusal !== undefined) throw admission.refusal;
}

/**
 * The handler's work for a request, answered only once the request is admitted: a refusal is
 * thrown as soon as it is known and the work's outcome dropped.
 */
export async function onceAdmitted<T>(res: Response, work: Promise<T>): Promise<T> {
  if (!res.locals.admission) return work;
  work.catch(() => undefined);
  await settleAdmission(res);
  return work;
}
