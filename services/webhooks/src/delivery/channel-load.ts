/**
 * Per-channel load of one delivery worker, for fairness between receivers.
 *
 * A channel is SLOW while one of its attempts in flight has run longer than `slowAfterMs`, and
 * from an attempt that took longer until one finishes faster. A slow channel may have at most
 * `perChannel` attempts in flight; every other channel is not limited (work-conserving: a fast
 * receiver may use the whole worker, since it gives the slots back within milliseconds). So a
 * receiver that answers slowly, or hangs until the time-out, holds at most `perChannel` slots
 * once it is known to be slow, and the other channels' webhooks keep going out. Before it is
 * known (its first attempts), it can hold what it claimed for one attempt's time at most.
 *
 * Slow channels together may have at most `slowTotal` attempts in flight (the worker gives them
 * half its slots): a few hanging receivers, each within its own limit, would otherwise fill the
 * worker between them, and every fast channel's webhooks would wait behind their time-outs.
 *
 * Only channels with attempts in flight, and slow ones for `forgetSlowAfterMs` after their last
 * attempt, are remembered.
 */
export class ChannelLoad {
  /** Start times (ms) of the attempts in flight, per channel. */
  private readonly inFlight = new Map<string, number[]>();
  /** Channels whose last finished attempt took longer than `slowAfterMs`, with when it finished. */
  private readonly slowLast = new Map<string, number>();

  private readonly slowTotal: number;
  private readonly forgetSlowAfterMs: number;

  constructor(
    private readonly perChannel: number,
    private readonly slowAfterMs: number,
    opts: { slowTotal?: number; forgetSlowAfterMs?: number } = {},
  ) {
    this.slowTotal = opts.slowTotal ?? Number.POSITIVE_INFINITY;
    this.forgetSlowAfterMs = opts.forgetSlowAfterMs ?? 10 * 60_000;
  }

  started(channel: string, at: number): void {
    const starts = this.inFlight.get(channel);
    if (starts) starts.push(at);
    else this.inFlight.set(channel, [at]);
  }

  /**
   * An attempt of the channel finished. Returns true when a claim could now take more rows than
   * before: the channel's (it was at its limit, or it stopped being slow), or any slow channel's
   * (their room together had run out): wake the loop.
   */
  finished(channel: string, startedAt: number, at: number): boolean {
    const before = this.roomOf(channel, at);
    const slowRoomBefore = this.slowRoom(at);
    const starts = this.inFlight.get(channel) ?? [];
    const i = starts.indexOf(startedAt);
    if (i >= 0) starts.splice(i, 1);
    if (starts.length === 0) this.inFlight.delete(channel);
    if (at - startedAt > this.slowAfterMs) this.slowLast.set(channel, at);
    else this.slowLast.delete(channel);
    const after = this.roomOf(channel, at);
    // Its own room, or the slow channels' room together (other slow channels may take more now).
    return (before !== null && before <= 0 && (after === null || after > 0)) || (slowRoomBefore <= 0 && this.slowRoom(at) > 0);
  }

  /** Whether the channel counts as slow at `now`. */
  isSlow(channel: string, now: number): boolean {
    if (this.slowLast.has(channel)) return true;
    const starts = this.inFlight.get(channel);
    return starts !== undefined && starts.some((s) => now - s > this.slowAfterMs);
  }

  /** How many more attempts the channel may start now (at most 0 when at its limit); null: not limited. */
  roomOf(channel: string, now: number): number | null {
    if (!this.isSlow(channel, now)) return null;
    return Math.min(this.perChannel - (this.inFlight.get(channel)?.length ?? 0), this.slowRoom(now));
  }

  /** How many more attempts the slow channels together may start now (at most 0 when at their limit). */
  slowRoom(now: number): number {
    if (this.slowTotal === Number.POSITIVE_INFINITY) return this.slowTotal;
    let inFlight = 0;
    for (const [channel, starts] of this.inFlight) if (this.isSlow(channel, now)) inFlight += starts.length;
    return this.slowTotal - inFlight;
  }

  /** The limited (slow) channels with the attempts each may still start; channels absent are not limited. */
  limits(now: number): Map<string, number> {
    for (const [channel, at] of this.slowLast) if (now - at > this.forgetSlowAfterMs && !this.inFlight.has(channel)) this.slowLast.delete(channel);
    const out = new Map<string, number>();
    for (const channel of new Set([...this.slowLast.keys(), ...this.inFlight.keys()])) {
      const room = this.roomOf(channel, now);
      if (room !== null) out.set(channel, Math.max(0, room));
    }
    return out;
  }

  /** Channels that may start nothing now. */
  full(now: number): string[] {
    return [...this.limits(now)].filter(([, room]) => room === 0).map(([channel]) => channel);
  }
}
