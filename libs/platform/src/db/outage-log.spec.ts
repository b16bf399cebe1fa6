import { recordingLogger } from '../testing/recorded-logs';
import { LoopFailureLog } from './outage-log';

describe('LoopFailureLog', () => {

  it('reports a database outage at warn once per 10 s, counting the rounds held back', () => {
    const { lines, logger } = recordingLogger();
    let now = 1_000_000;
    const log = new LoopFailureLog(logger, 'order timer worker could not claim timers', () => now);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    log.failed(refused);
    for (let i = 0; i < 5; i++) log.failed(refused);
    now += 10_000;
    log.failed(refused, { schema: 'orders' });
    expect(lines).toEqual([
      { level: 'warn', msg: 'order timer worker could not claim timers: database unavailable (one line per 10 s)', obj: { err: refused, suppressed: 0 } },
      { level: 'warn', msg: 'order timer worker could not claim timers: database unavailable (one line per 10 s)', obj: { err: refused, schema: 'orders', suppressed: 5 } },
    ]);
  });

  it('reports anything else at error, every time', () => {
    const { lines, logger } = recordingLogger();
    const log = new LoopFailureLog(logger, 'stock window worker failed');
    const bug = new TypeError('x is not a function');
    log.failed(bug);
    log.failed(bug, { windowId: 'w' });
    expect(lines).toEqual([
      { level: 'error', msg: 'stock window worker failed', obj: { err: bug } },
      { level: 'error', msg: 'stock window worker failed', obj: { err: bug, windowId: 'w' } },
    ]);
  });
});
