/**
 * kafkajs 2.2.4 (its last release) keeps every broker connection in a 1 ms timer loop once the
 * connection has answered anything: `RequestQueue.scheduleCheckPendingRequests` re-arms its
 * timer after each check even with nothing pending, with a negative delay (Node runs it after
 * 1 ms). Each idle consumer or producer thus wakes its process about a thousand times a second
 * per connection: a few percent of a core at rest, on every service. Issues tulios/kafkajs#1556
 * and #1704; fix proposed in tulios/kafkajs#1667 (not released): check later only while
 * requests are pending. `push` schedules a check whenever it queues a request, and every
 * response checks the queue at once, so nothing pending is ever left unchecked.
 */
interface RequestQueueInternals {
  pending: unknown[];
  scheduleCheckPendingRequests(this: RequestQueueInternals): void;
  __pfIdleLoopFixed?: boolean;
}

/** kafkajs' RequestQueue class (not part of its typed API). */
export function kafkajsRequestQueue(): { prototype: RequestQueueInternals } {
  return require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
}

/** Applies the fix once per process; later calls do nothing. */
export function fixKafkajsIdleLoop(): void {
  const proto = kafkajsRequestQueue().prototype;
  if (proto.__pfIdleLoopFixed) return;
  const original = proto.scheduleCheckPendingRequests;
  if (typeof original !== 'function') throw new Error('kafkajs RequestQueue has no scheduleCheckPendingRequests: check kafkajs-request-queue.ts against its release');
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals) {
    if (this.pending.length === 0) return;
    original.call(this);
  };
  proto.__pfIdleLoopFixed = true;
}
