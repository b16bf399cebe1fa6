import { afterAttempt, attemptError, DEFAULT_RETRY_DELAYS_SECONDS, maxAttempts, mayQueueNewWebhooks, webhookChannelOf } from './delivery-rules';

const now = new Date('2026-11-20T10:00:00.000Z');
const delays = [...DEFAULT_RETRY_DELAYS_SECONDS];
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('delivery rules', () => {
  it('5 attempts with waits of 10 s, 100 s, 1 000 s and 10 000 s', () => {
    expect(maxAttempts(delays)).toBe(5);
    const fail = { kind: 'response', statusCode: 500 } as const;
    expect(afterAttempt(fail, 1, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(10) });
    expect(afterAttempt(fail, 2, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(100) });
    expect(afterAttempt(fail, 3, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(1000) });
    expect(afterAttempt(fail, 4, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(10000) });
    expect(afterAttempt(fail, 5, delays, now)).toMatchObject({ status: 'failed', reason: expect.stringContaining('HTTP 500') });
  });

  it.each([200, 201, 202, 204, 299])('%i is success', (statusCode) => {
    expect(afterAttempt({ kind: 'response', statusCode }, 1, delays, now)).toEqual({ status: 'succeeded' });
  });

  it.each([100, 199, 300, 301, 302, 307, 308, 400, 404, 410, 429, 500, 503])('%i is a failed attempt', (statusCode) => {
    expect(afterAttempt({ kind: 'response', statusCode }, 1, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(10) });
  });

  it('a redirect is named as not followed', () => {
    expect(attemptError({ kind: 'response', statusCode: 302 })).toBe('redirect 302 not followed');
  });

  it('time-outs and connection errors are retried', () => {
    expect(afterAttempt({ kind: 'error', error: 'timeout' }, 2, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(100) });
  });

  it('a URL refused for good fails at once; a DNS server failure is retried', () => {
    const refusal = { code: 'resolves-to-non-public-address', message: 'x', temporary: false } as const;
    expect(afterAttempt({ kind: 'refused', refusal }, 1, delays, now)).toMatchObject({ status: 'failed', reason: expect.stringContaining('resolves-to-non-public-address') });
    const passing = { code: 'dns-failure', message: 'x', temporary: true } as const;
    expect(afterAttempt({ kind: 'refused', refusal: passing }, 1, delays, now)).toEqual({ status: 'pending', nextAttemptAt: at(10) });
  });

  it('new webhooks need a URL, an active channel, and never the Standard channel', () => {
    expect(mayQueueNewWebhooks({ active: true, standard: false }, 'https://x.example.com/')).toBe(true);
    expect(mayQueueNewWebhooks({ active: true, standard: false }, null)).toBe(false);
    expect(mayQueueNewWebhooks({ active: false, standard: false }, 'https://x.example.com/')).toBe(false);
    expect(mayQueueNewWebhooks({ active: true, standard: true }, 'https://x.example.com/')).toBe(false);
    expect(mayQueueNewWebhooks(null, 'https://x.example.com/')).toBe(true);
  });

  it('order webhooks go only to the channel an API order was created on', () => {
    expect(webhookChannelOf({ origin: 'api', channelId: 'acme-shop' })).toBe('acme-shop');
    expect(webhookChannelOf({ origin: 'merchant-app', channelId: 'acme-standard' })).toBeNull();
    expect(webhookChannelOf({ origin: 'import', channelId: 'acme-shop' })).toBeNull();
  });
});
