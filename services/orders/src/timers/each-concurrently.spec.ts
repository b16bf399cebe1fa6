import { eachConcurrently } from './each-concurrently';

describe('eachConcurrently', () => {
  it('runs every item once, at most `limit` at a time, starting them in order', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const ended: number[] = [];
    await eachConcurrently([1, 2, 3, 4, 5, 6, 7, 8, 9], 4, async (n) => {
      started.push(n);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, (10 - n) * 2));
      inFlight--;
      ended.push(n);
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ended.sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(4);
  });

  it('one at a time with a limit of 1; nothing to do with no items', async () => {
    let inFlight = 0;
    let most = 0;
    await eachConcurrently([1, 2, 3], 1, async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    });
    expect(most).toBe(1);
    const none = jest.fn();
    await eachConcurrently([], 4, none);
    expect(none).not.toHaveBeenCalled();
  });
});
