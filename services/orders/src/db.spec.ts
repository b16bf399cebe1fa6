import { createPool } from './db';

describe('the orders pool', () => {
  it('lets a change wait on stock inside its transaction: the server ends an idle transaction only after four stock calls, never before a minute', async () => {
    const ofDefault = createPool('postgres://127.0.0.1:1/x', 1);
    const ofSlowStock = createPool('postgres://127.0.0.1:1/x', 1, undefined, 45_000);
    try {
      expect(ofDefault.options).toMatchObject({ idle_in_transaction_session_timeout: 60_000, keepAlive: true });
      expect(ofSlowStock.options).toMatchObject({ idle_in_transaction_session_timeout: 180_000 });
    } finally {
      await Promise.all([ofDefault.end(), ofSlowStock.end()]);
    }
  });
});
