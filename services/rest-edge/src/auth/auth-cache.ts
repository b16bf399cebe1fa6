import type { ChannelTokenFacts } from '../domain/access';

export interface AuthCacheOptions {
  /** How long an entry is reused; 0 disables the cache. */
  ttlMs: number;
  maxEntries: number;
  clock?: () => number;
}

interface Entry {
  facts: ChannelTokenFacts;
  teamCode: string;
  expiresAt: number;
}

export type InvalidationListener = (teamCode: string, reason: string) => void;

/**
 * Credentials lookups (`channelTokenCheck`) remembered in this process per (path channel, token
 * hash), so a busy integration does not cost a call to accounts per request. Entries expire after
 * a short TTL and, more importantly, are dropped the moment an accounts event says the team,
 * one of its channels or tokens changed (see invalidation.ts): a revoked token or a deactivated
 * channel takes effect on the next request after the event arrives.
 *
 * A lookup that was in flight while an invalidation happened is not stored (generation check),
 * so an answer read before a revoke cannot outlive it.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTeam = new Map<string, Set<string>>();
  private readonly listeners: InvalidationListener[] = [];
  private readonly clock: () => number;
  private gen = 0;

  constructor(private readonly opts: AuthCacheOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Snapshot to pass to `set`: the lookup is stored only if nothing was invalidated meanwhile. */
  get generation(): number {
    return this.gen;
  }

  get(pathChannelId: string, tokenSha256: string): ChannelTokenFacts | undefined {
    if (!this.enabled) return undefined;
    const key = keyOf(pathChannelId, tokenSha256);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock()) {
      this.delete(key, entry);
      return undefined;
    }
    return entry.facts;
  }

  set(pathChannelId: string, tokenSha256: string, facts: ChannelTokenFacts, generation: number): void {
    if (!this.enabled || generation !== this.gen || !facts.channel) return;
    const key = keyOf(pathChannelId, tokenSha256);
    const previous = this.entries.get(key);
    if (previous) this.delete(key, previous);
    const teamCode = facts.channel.teamCode;
    this.entries.set(key, { facts, teamCode, expiresAt: this.clock() + this.opts.ttlMs });
    let keys = this.byTeam.get(teamCode);
    if (!keys) this.byTeam.set(teamCode, (keys = new Set()));
    keys.add(key);
    // Maps iterate in insertion order: the first entry is the oldest.
    while (this.entries.size > this.opts.maxEntries) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry];
      this.delete(oldestKey, oldest);
    }
  }

  /** Drops every entry of the team (its channels and tokens may have changed). */
  invalidateTeam(teamCode: string, reason: string): void {
    this.gen += 1;
    const keys = this.byTeam.get(teamCode);
    if (keys) {
      for (const key of keys) this.entries.delete(key);
      this.byTeam.delete(teamCode);
    }
    for (const listener of this.listeners) listener(teamCode, reason);
  }

  clear(): void {
    this.gen += 1;
    this.entries.clear();
    this.byTeam.clear();
  }

  /** Called after each invalidation (observability, tests). */
  onInvalidate(listener: InvalidationListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    const keys = this.byTeam.get(entry.teamCode);
    keys?.delete(key);
    if (keys && keys.size === 0) this.byTeam.delete(entry.teamCode);
  }
}

/** The hash has a fixed length, so hash-then-channel cannot collide whatever the path holds. */
function keyOf(pathChannelId: string, tokenSha256: string): string {
  return tokenSha256 + pathChannelId;
}
