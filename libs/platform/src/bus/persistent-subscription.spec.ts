import type { Subscription } from './bus';
import { persistentSubscription } from './persistent-subscription';

describe('persistentSubscription', () => {
  const logger = { warn: jest.fn(), info: jest.fn() };
  const stoppable = () => ({ stop: jest.fn(async () => undefined) });
  const unreachable = () => Promise.reject(new Error('ECONNREFUSED'));
  /** A subscribe that joins only when told to. */
  const joiningLater = () => {
    const sub = stoppable();
    let join!: () => void;
    const joined = new Promise<void>((resolve) => (join = resolve));
    const subscribe = async (): Promise<Subscription> => {
      await joined;
      return sub;
    };
    return { sub, join, subscribe };
  };

  it('subscribes at once when it can; stopping stops the subscription', async () => {
    const sub = stoppable();
    const p = persistentSubscription(async () => sub, { name: 'x', logger });
    await p.firstAttempt;
    await p.subscribed;
    expect(sub.stop).not.toHaveBeenCalled();
    await p.stop();
    expect(sub.stop).toHaveBeenCalledTimes(1);
  });

  it('does not hold its caller up while the broker cannot be reached, and subscribes once it can', async () => {
    const sub = stoppable();
    let calls = 0;
    const subscribe = jest.fn(async (): Promise<Subscription> => (++calls < 3 ? unreachable() : sub));
    const p = persistentSubscription(subscribe, { name: 'x', logger, minDelayMs: 5, maxDelayMs: 10 });
    await p.firstAttempt;
    expect(calls).toBe(1);
    await p.subscribed;
    expect(calls).toBe(3);
    expect(logger.warn).toHaveBeenCalled();
    await p.stop();
    expect(sub.stop).toHaveBeenCalledTimes(1);
  });

  it('stopped while waiting to try again: no more attempts', async () => {
    const subscribe = jest.fn(unreachable);
    const p = persistentSubscription(subscribe, { name: 'x', logger, minDelayMs: 60_000 });
    await p.firstAttempt;
    await p.stop();
    await p.subscribed;
    expect(subscribe).toHaveBeenCalledTimes(1);
  });

  it('a stop does not wait long for an attempt under way; the attempt stops what it made when it ends', async () => {
    const { sub, join, subscribe } = joiningLater();
    const p = persistentSubscription(subscribe, { name: 'x', logger, stopWaitMs: 10 });
    await p.stop();
    expect(sub.stop).not.toHaveBeenCalled();
    join();
    await p.subscribed;
    expect(sub.stop).toHaveBeenCalledTimes(1);
  });

  it('two stops stop the subscription once', async () => {
    const sub = stoppable();
    const p = persistentSubscription(async () => sub, { name: 'x', logger });
    await p.subscribed;
    await Promise.all([p.stop(), p.stop()]);
    expect(sub.stop).toHaveBeenCalledTimes(1);
  });

  it('stopped while an attempt is under way that then succeeds: that subscription is stopped too', async () => {
    const { sub, join, subscribe } = joiningLater();
    const p = persistentSubscription(subscribe, { name: 'x', logger });
    const stopping = p.stop();
    join();
    await stopping;
    expect(sub.stop).toHaveBeenCalledTimes(1);
  });
});
