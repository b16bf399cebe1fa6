import { Problem } from '@pf/platform/problems';
import { StockFailedError, StockUnavailableError } from '../adapters/stock-client';
import { isTransientFailure } from './timer-worker';

describe('isTransientFailure', () => {
  it('waits out a stock service or a database out of reach', () => {
    const transient = [
      new StockUnavailableError('stock did not answer'),
      new Problem('unavailable', { detail: 'Stock could not be checked right now; try again shortly.' }),
      // the stock service's own database out of reach, as it answers it
      new Problem('unavailable', { detail: 'The service cannot reach its database right now; try again shortly.' }),
      // our database out of reach (every case: libs/platform db/unreachable.spec.ts)
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const err of transient) expect({ err: err.message, transient: isTransientFailure(err) }).toEqual({ err: err.message, transient: true });
  });

  it('counts everything else toward the attempts', () => {
    const lasting = [
      new Problem('order-state-forbids', { detail: 'no' }),
      // the stock service answered with an unexpected error: a bug there comes back every time
      new StockFailedError('The stock service failed: An unexpected error occurred.', 'ref-1'),
      new StockFailedError('consumeHolds gave no result'),
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      new TypeError("Cannot read properties of undefined (reading 'uuid')"),
      'a string',
      null,
    ];
    for (const err of lasting) expect(isTransientFailure(err)).toBe(false);
  });
});
