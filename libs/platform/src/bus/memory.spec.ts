import { ChannelUpdated, TeamUpdated } from '../events/accounts';
import type { EventEnvelope } from '../events/envelope';
import { TOPICS } from '../events/topics';
import { newEvent } from '../outbox/outbox';
import type { OutgoingEvent } from './bus';
import { InMemoryEventBus } from './memory';

function teamEvent(teamCode: string, n: number): OutgoingEvent {
  return newEvent(TeamUpdated, teamCode, { teamCode, name: `${teamCode}-${n}`, active: true });
}

function seqOf(event: EventEnvelope): number {
  return Number((event.payload as { name: string }).name.split('-').pop());
}

/** Resolves when `check` holds, polling on the event loop (the bus delivers asynchronously). */
async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 2));
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InMemoryEventBus', () => {
  let bus: InMemoryEventBus;
  beforeEach(() => {
    bus = new InMemoryEventBus(undefined, 5);
  });
  afterEach(() => bus.close());

  it('delivers every event to each group, in publish order', async () => {
    const a: number[] = [];
    const b: number[] = [];
    await bus.subscribe({ groupId: 'a', topics: [TOPICS.teams], handler: async (e) => void a.push(seqOf(e)) });
    await bus.subscribe({ groupId: 'b', topics: [TOPICS.teams], handler: async (e) => void b.push(seqOf(e)) });
    await bus.publish([teamEvent('t', 0), teamEvent('t', 1)]);
    await bus.publish([teamEvent('t', 2)]);
    await until(() => a.length === 3 && b.length === 3);
    expect(a).toEqual([0, 1, 2]);
    expect(b).toEqual([0, 1, 2]);
  });

  it('batchHandler: the events available, in publish order, in runs of at most maxBatchSize; a failing run is retried whole', async () => {
    const runs: number[][] = [];
    let failed = false;
    await bus.publish(Array.from({ length: 7 }, (_, n) => teamEvent('t', n)));
    await bus.subscribe({
      groupId: 'batch',
      topics: [TOPICS.teams],
      maxBatchSize: 3,
      batchHandler: async (items) => {
        const seqs = items.map((i) => seqOf(i.event));
        if (!failed && seqs.includes(4)) {
          failed = true;
          throw new Error('try again');
        }
        runs.push(seqs);
      },
    });
    await until(() => runs.flat().length === 7);
    expect(runs).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    await bus.publish([teamEvent('t', 7)]);
    await until(() => runs.flat().length === 8);
    expect(runs[3]).toEqual([7]);
  });

  it('refuses a subscription with both or neither of handler and batchHandler', async () => {
    await expect(bus.subscribe({ groupId: 'none', topics: [TOPICS.teams] })).rejects.toThrow(/exactly one/);
    await expect(bus.subscribe({ groupId: 'both', topics: [TOPICS.teams], handler: async () => undefined, batchHandler: async () => undefined })).rejects.toThrow(/exactly one/);
  });

  it('passes the topic, and only the subscribed topics', async () => {
    const seen: string[] = [];
    await bus.subscribe({ groupId: 'g', topics: [TOPICS.channels], handler: async (e, meta) => void seen.push(`${meta.topic}:${e.type}`) });
    await bus.publish([
      teamEvent('t', 0),
      newEvent(ChannelUpdated, 't-c', { channelId: 't-c', teamCode: 't', channelCode: 'c', name: 'C', active: true, standard: false }),
    ]);
    await until(() => seen.length === 1);
    expect(seen).toEqual([`${TOPICS.channels}:channel.updated`]);
  });

  it('starts from the beginning by default, from the end with fromBeginning: false', async () => {
    await bus.publish([teamEvent('t', 0)]);
    const all: number[] = [];
    const latest: number[] = [];
    await bus.subscribe({ groupId: 'all', topics: [TOPICS.teams], handler: async (e) => void all.push(seqOf(e)) });
    await bus.subscribe({ groupId: 'latest', topics: [TOPICS.teams], fromBeginning: false, handler: async (e) => void latest.push(seqOf(e)) });
    await bus.publish([teamEvent('t', 1)]);
    await until(() => all.length === 2 && latest.length === 1);
    expect(all).toEqual([0, 1]);
    expect(latest).toEqual([1]);
  });

  it('retries a failing handler until it succeeds, keeping the order of later events', async () => {
    const handled: number[] = [];
    let failures = 0;
    await bus.subscribe({
      groupId: 'g',
      topics: [TOPICS.teams],
      handler: async (e) => {
        if (seqOf(e) === 1 && failures < 3) {
          failures += 1;
          throw new Error('transient');
        }
        handled.push(seqOf(e));
      },
    });
    await bus.publish([0, 1, 2, 3].map((n) => teamEvent('t', n)));
    await until(() => handled.length === 4);
    expect(failures).toBe(3);
    expect(handled).toEqual([0, 1, 2, 3]);
  });

  it('hands each group its own decoded copy, as a broker would', async () => {
    const seenByB: EventEnvelope[] = [];
    await bus.subscribe({
      groupId: 'a',
      topics: [TOPICS.teams],
      handler: async (e) => {
        (e.payload as { name: string }).name = 'mutated';
      },
    });
    await bus.subscribe({ groupId: 'b', topics: [TOPICS.teams], handler: async (e) => void seenByB.push(e) });
    const out = teamEvent('t', 0);
    await bus.publish([out]);
    await until(() => seenByB.length === 1);
    await new Promise((r) => setTimeout(r, 10));
    expect(seenByB[0]).toEqual(out.event);
    expect((out.event.payload as { name: string }).name).toBe('t-0');
  });

  it('skips an event that is not valid instead of blocking the topic', async () => {
    const handled: number[] = [];
    await bus.subscribe({ groupId: 'g', topics: [TOPICS.teams], handler: async (e) => void handled.push(seqOf(e)) });
    const bad = teamEvent('t', 0);
    (bad.event as { payload: unknown }).payload = { teamCode: 42 };
    await bus.publish([bad, teamEvent('t', 1)]);
    await until(() => handled.length === 1);
    expect(handled).toEqual([1]);
  });

  it('delivers an event published at any moment around the end of a delivery round', async () => {
    // A publish that lands between the consumer finishing its last event and it marking itself
    // idle must still be delivered. Probe every microtask depth around that moment.
    for (let depth = 0; depth < 30; depth++) {
      const local = new InMemoryEventBus(undefined, 5);
      const handled: number[] = [];
      await local.subscribe({
        groupId: 'g',
        topics: [TOPICS.teams],
        handler: async (e) => {
          handled.push(seqOf(e));
          if (seqOf(e) === 0) {
            let p = Promise.resolve();
            for (let i = 0; i < depth; i++) p = p.then(() => undefined);
            void p.then(() => local.publish([teamEvent('t', 1)]));
          }
        },
      });
      await local.publish([teamEvent('t', 0)]);
      await until(() => handled.length === 2).catch(() => {
        throw new Error(`event published ${depth} microtasks after the handler returned was never delivered`);
      });
      await local.close();
    }
  });

  it('stop() waits for the handler in flight and delivers nothing afterwards', async () => {
    const gate = deferred();
    const started: number[] = [];
    const finished: number[] = [];
    const sub = await bus.subscribe({
      groupId: 'g',
      topics: [TOPICS.teams],
      handler: async (e) => {
        started.push(seqOf(e));
        await gate.promise;
        finished.push(seqOf(e));
      },
    });
    await bus.publish([teamEvent('t', 0), teamEvent('t', 1)]);
    await until(() => started.length === 1);
    let stopped = false;
    const stopping = sub.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(finished).toEqual([0]);
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toEqual([0]);
  });

  it('a group that subscribes again after stop() resumes where it stopped', async () => {
    const first: number[] = [];
    const sub = await bus.subscribe({ groupId: 'g', topics: [TOPICS.teams], handler: async (e) => void first.push(seqOf(e)) });
    await bus.publish([teamEvent('t', 0)]);
    await until(() => first.length === 1);
    await sub.stop();
    await bus.publish([teamEvent('t', 1)]);
    const second: number[] = [];
    await bus.subscribe({ groupId: 'g', topics: [TOPICS.teams], handler: async (e) => void second.push(seqOf(e)) });
    await until(() => second.length === 1);
    expect(second).toEqual([1]);
  });

  it('close() stops consumers and refuses later publishes', async () => {
    await bus.close();
    await expect(bus.publish([teamEvent('t', 0)])).rejects.toThrow('closed');
  });
});
