import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import type { Logger } from '@pf/platform/logging';
import type { WindowCount } from '../domain/rate-window';
import type { RateLimiter, RateLimits } from './rate-limiter';

/*
 * Each operation is one Lua script, so reading, deciding and incrementing are atomic across every
 * edge replica. The scripts read Redis's own clock (TIME), so all replicas agree on the window
 * (fixed, aligned on multiples of its length) whatever their local clocks say. A counter key is
 * `<base>:<window index>` and expires shortly after its window ends.
 *
 * Every script returns { failed-auth count, second value, window index, now (ms) }.
 */
const CLOCK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local w = math.floor(now / windowMs)
local ipKey = KEYS[1] .. ':' .. w
local ipCount = tonumber(redis.call('GET', ipKey) or '0')
`;

/** Read the address's failures. */
const PEEK = `${CLOCK}
return {ipCount, 0, w, now}`;

/** Count one failure unless the budget was already exceeded; second value 1 when counted. */
const RECORD_FAILURE = `${CLOCK}
if ipCount > tonumber(ARGV[2]) then return {ipCount, 0, w, now} end
ipCount = redis.call('INCR', ipKey)
if ipCount == 1 then redis.call('PEXPIRE', ipKey, windowMs + 1000) end
return {ipCount, 1, w, now}`;

/** Count one request of the token unless the address is blocked (its budget exceeded); second value the token count, or -1. */
const ADMIT = `${CLOCK}
if ipCount > tonumber(ARGV[2]) then return {ipCount, -1, w, now} end
local tokenKey = KEYS[2] .. ':' .. w
local c = redis.call('INCR', tokenKey)
if c == 1 then redis.call('PEXPIRE', tokenKey, windowMs + 1000) end
return {ipCount, c, w, now}`;

type Reply = [number, number, number, number];

class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

const SCRIPTS = { peek: new Script(PEEK), recordFailure: new Script(RECORD_FAILURE), admit: new Script(ADMIT) };

export interface RedisRateLimiterOptions {
  url: string;
  /** Prefix of every key (keeps deployments and test suites apart). */
  keyPrefix: string;
  limits: RateLimits;
  logger: Logger;
}

/** The production rate limiter: counters in Redis, shared by every edge replica. */
export class RedisRateLimiter implements RateLimiter {
  readonly limits: RateLimits;
  private readonly client;
  private readonly prefix: string;

  constructor(opts: RedisRateLimiterOptions) {
    this.limits = opts.limits;
    this.prefix = opts.keyPrefix;
    this.client = createClient({
      url: opts.url,
      // A request must not wait for a reconnect: with Redis down it fails at once (500) instead of hanging.
      disableOfflineQueue: true,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) },
    });
    this.client.on('error', (err: Error) => opts.logger.warn({ err }, 'redis connection error'));
  }

  async connect(): Promise<void> {
    if (!this.client.isOpen) await this.client.connect();
  }

  async peekFailedAuth(ip: string): Promise<WindowCount> {
    const [count, , w, now] = await this.run(SCRIPTS.peek, [this.ipKey(ip)], [this.limits.failedAuthPerIp]);
    return this.window(this.limits.failedAuthPerIp, count, w, now);
  }

  async recordFailedAuth(ip: string): Promise<{ recorded: boolean; failedAuth: WindowCount }> {
    const [count, recorded, w, now] = await this.run(SCRIPTS.recordFailure, [this.ipKey(ip)], [this.limits.failedAuthPerIp]);
    return { recorded: recorded === 1, failedAuth: this.window(this.limits.failedAuthPerIp, count, w, now) };
  }

  async admit(ip: string, tokenId: string): Promise<{ failedAuth: WindowCount; tokenBudget?: WindowCount }> {
    const [ipCount, tokenCount, w, now] = await this.run(SCRIPTS.admit, [this.ipKey(ip), `${this.prefix}tok:${tokenId}`], [
      this.limits.failedAuthPerIp,
    ]);
    const failedAuth = this.window(this.limits.failedAuthPerIp, ipCount, w, now);
    if (tokenCount < 0) return { failedAuth };
    return { failedAuth, tokenBudget: this.window(this.limits.perToken, tokenCount, w, now) };
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
  }

  /** Deletes every key under the prefix (tests). */
  async deleteAllKeys(): Promise<void> {
    for await (const keys of this.client.scanIterator({ MATCH: `${this.prefix}*`, COUNT: 500 })) {
      if (keys.length) await this.client.unlink(keys);
    }
  }

  private ipKey(ip: string): string {
    return `${this.prefix}ip:${ip}`;
  }

  private window(limit: number, count: number, index: number, nowMs: number): WindowCount {
    return { limit, count, nowMs, resetAtMs: (index + 1) * this.limits.windowMs };
  }

  /** EVALSHA, loading the script on the first call (or after a Redis restart). */
  private async run(script: Script, keys: string[], extra: number[]): Promise<Reply> {
    const options = { keys, arguments: [String(this.limits.windowMs), ...extra.map(String)] };
    try {
      return (await this.client.evalSha(script.sha, options)) as unknown as Reply;
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return (await this.client.eval(script.source, options)) as unknown as Reply;
    }
  }
}
