import { LogThrottle } from './logging';

describe('LogThrottle', () => {
  it('lets one line through per interval and reports how many it held back', () => {
    let now = 1_000;
    const throttle = new LogThrottle(10_000, () => now);
    expect(throttle.take()).toEqual({ suppressed: 0 });
    now += 1;
    expect(throttle.take()).toBeNull();
    now += 5_000;
    expect(throttle.take()).toBeNull();
    now += 5_000;
    expect(throttle.take()).toEqual({ suppressed: 2 });
    now += 20_000;
    expect(throttle.take()).toEqual({ suppressed: 0 });
  });
});
