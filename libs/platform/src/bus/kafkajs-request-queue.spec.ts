import { fixKafkajsIdleLoop, kafkajsRequestQueue } from './kafkajs-request-queue';

const RequestQueue = kafkajsRequestQueue() as unknown as new (opts: object) => {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  destroy(): void;
};

const silent = { debug: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };

function queue() {
  return new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:9092', logger: silent });
}

describe('fixKafkajsIdleLoop', () => {
  beforeAll(() => fixKafkajsIdleLoop());

  it('leaves an idle connection without a timer after a check', () => {
    const q = queue();
    q.checkPendingRequests(); // what every response does
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it('still checks later while requests are pending behind a throttle', () => {
    const q = queue();
    q.throttledUntil = Date.now() + 50;
    q.pending.push({ send: () => undefined });
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    q.destroy();
  });

  it('is applied once however often it is called', () => {
    const before = kafkajsRequestQueue().prototype.scheduleCheckPendingRequests;
    fixKafkajsIdleLoop();
    expect(kafkajsRequestQueue().prototype.scheduleCheckPendingRequests).toBe(before);
  });
});
