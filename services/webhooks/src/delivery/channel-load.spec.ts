import { ChannelLoad } from './channel-load';

describe('per-channel load (fairness between receivers)', () => {
  it('does not limit a channel whose attempts are fast, however many are in flight', () => {
    const load = new ChannelLoad(2, 1000);
    for (let i = 0; i < 10; i++) load.started('fast', 0);
    expect(load.roomOf('fast', 999)).toBeNull();
    expect(load.limits(999).size).toBe(0);
    expect(load.finished('fast', 0, 20)).toBe(false);
    expect(load.isSlow('fast', 20)).toBe(false);
  });

  it('limits a channel once an attempt in flight is older than the threshold, and passes it over when full', () => {
    const load = new ChannelLoad(2, 1000);
    load.started('hanging', 0);
    load.started('hanging', 0);
    load.started('hanging', 0);
    expect(load.roomOf('hanging', 1000)).toBeNull();
    expect(load.limits(1001)).toEqual(new Map([['hanging', 0]]));
    expect(load.full(1001)).toEqual(['hanging']);
    // At its limit after one times out: no wake-up; the second gives it room (wake-up), the third more.
    expect(load.finished('hanging', 0, 10_000)).toBe(false);
    expect(load.finished('hanging', 0, 10_000)).toBe(true);
    expect(load.finished('hanging', 0, 10_000)).toBe(false);
    expect(load.limits(10_000)).toEqual(new Map([['hanging', 2]]));
  });

  it('stays slow after a slow attempt until one is fast; then it is not limited (and the loop is woken if it was full)', () => {
    const load = new ChannelLoad(2, 1000);
    load.started('slow', 0);
    load.finished('slow', 0, 1500);
    expect(load.isSlow('slow', 1500)).toBe(true);
    expect(load.limits(1500)).toEqual(new Map([['slow', 2]]));
    load.started('slow', 2000);
    load.started('slow', 2000);
    expect(load.full(2001)).toEqual(['slow']);
    expect(load.finished('slow', 2000, 2050)).toBe(true); // fast again: no limit any more
    expect(load.roomOf('slow', 2050)).toBeNull();
    expect(load.finished('slow', 2000, 2060)).toBe(false);
  });

  it('gives the slow channels together at most their share: a few hanging receivers cannot take the whole worker', () => {
    const load = new ChannelLoad(4, 1000, { slowTotal: 6 });
    for (const channel of ['a', 'b']) for (let i = 0; i < 3; i++) load.started(channel, 0);
    load.started('fast', 9_990);
    // Both hang: 6 in flight together, each under its own limit of 4, yet no room for either.
    expect(load.slowRoom(9_995)).toBe(0);
    expect(load.limits(9_995)).toEqual(new Map([['a', 0], ['b', 0]]));
    expect(load.roomOf('fast', 9_995)).toBeNull();
    expect(load.finished('fast', 9_990, 9_995)).toBe(false);
    // One of a's attempts times out: the loop is woken; a and b may each take one more (together one: slowRoom).
    expect(load.finished('a', 0, 10_000)).toBe(true);
    expect(load.slowRoom(10_000)).toBe(1);
    expect(load.limits(10_000)).toEqual(new Map([['a', 1], ['b', 1]]));
  });

  it('forgets a slow channel that sent nothing for a long time', () => {
    const load = new ChannelLoad(2, 1000, { forgetSlowAfterMs: 60_000 });
    load.started('gone', 0);
    load.finished('gone', 0, 5000);
    expect(load.limits(60_000).has('gone')).toBe(true);
    expect(load.limits(65_001).has('gone')).toBe(false);
    expect(load.isSlow('gone', 65_002)).toBe(false);
  });
});
