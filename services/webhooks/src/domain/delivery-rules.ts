import type { UrlRefusal } from './url-policy';

/** Waits between attempts (spec section 8): 10 s, 100 s, 1 000 s, 10 000 s, so 5 attempts. */
export const DEFAULT_RETRY_DELAYS_SECONDS = [10, 100, 1000, 10000] as const;

/** What one attempt came to. */
export type AttemptResult =
  /** The receiver answered (any status; only 2xx is success, a 3xx is never followed). */
  | { kind: 'response'; statusCode: number }
  /** No answer: connection refused or reset, TLS failure, time-out. */
  | { kind: 'error'; error: string }
  /** Rule W1 refused the URL before any connection was made. */
  | { kind: 'refused'; refusal: UrlRefusal };

/** What becomes of a delivery after an attempt. */
export type AfterAttempt =
  | { status: 'succeeded' }
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed'; reason: string };

export function isSuccess(result: AttemptResult): boolean {
  return result.kind === 'response' && result.statusCode >= 200 && result.statusCode < 300;
}

/** A short description of a failed attempt, for the attempt log. */
export function attemptError(result: AttemptResult): string | null {
  switch (result.kind) {
    case 'response':
      if (isSuccess(result)) return null;
      return result.statusCode >= 300 && result.statusCode < 400 ? `redirect ${result.statusCode} not followed` : `HTTP ${result.statusCode}`;
    case 'error':
      return result.error;
    case 'refused':
      return `URL refused (${result.refusal.code}): ${result.refusal.message}`;
  }
}

/**
 * Decides the next step after attempt number `attempt` (1-based). 2xx succeeds. A URL that W1
 * refuses for good (not a passing DNS failure) fails the delivery at once: retrying cannot help
 * and must never connect. Anything else is retried after `delays[attempt - 1]` seconds while
 * attempts remain (`delays.length + 1` in all).
 */
export function afterAttempt(result: AttemptResult, attempt: number, delaysSeconds: readonly number[], now: Date): AfterAttempt {
  if (isSuccess(result)) return { status: 'succeeded' };
  const error = attemptError(result) ?? 'failed';
  if (result.kind === 'refused' && !result.refusal.temporary) return { status: 'failed', reason: error };
  const delay = delaysSeconds[attempt - 1];
  if (delay === undefined) return { status: 'failed', reason: `${error} (attempt ${attempt} of ${delaysSeconds.length + 1}, no attempts left)` };
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay * 1000) };
}

/** Attempts a delivery gets in all. */
export function maxAttempts(delaysSeconds: readonly number[]): number {
  return delaysSeconds.length + 1;
}

/** The facts about a channel that decide whether it may be sent NEW webhooks (rule W2, section 6). */
export interface ChannelFacts {
  active: boolean;
  standard: boolean;
}

/**
 * A channel gets new webhooks only with a registered URL, while active, and never the Standard
 * channel (it has no integration). Retries of webhooks already queued do not ask this.
 * An unknown channel (its accounts events not seen yet) with a registered URL counts as active:
 * registering took an authenticated, active channel.
 */
export function mayQueueNewWebhooks(channel: ChannelFacts | null, registeredUrl: string | null): boolean {
  if (!registeredUrl) return false;
  if (!channel) return true;
  return channel.active && !channel.standard;
}

/** The channel an order's webhooks go to: only orders created through the API, to that channel (rule O1/W2). */
export function webhookChannelOf(order: { origin: string; channelId: string }): string | null {
  return order.origin === 'api' ? order.channelId : null;
}
