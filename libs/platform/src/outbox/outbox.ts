import type { OutgoingEvent } from '../bus/bus';
import type { EventDefinition, EventEnvelope } from '../events/envelope';
import { outboxChannel, quoteSchema, type RawSql } from './sql';

/**
 * Records events in the service's outbox inside the caller's transaction. They reach the bus
 * only if, and after, that transaction commits.
 */
export async function appendToOutbox(tx: RawSql, schema: string, events: OutgoingEvent[]): Promise<void> {
  if (events.length === 0) return;
  const s = quoteSchema(schema);
  const values: unknown[] = [];
  const rows = events.map(({ topic, event }, i) => {
    values.push(event.id, topic, event.aggregateId, JSON.stringify(event));
    const p = i * 4;
    return `($${p + 1}::uuid, $${p + 2}, $${p + 3}, $${p + 4}::jsonb)`;
  });
  values.push(outboxChannel(schema));
  // One round trip: the insert runs as a data-modifying WITH whether or not it is read. The notify
  // is delivered to listeners only on commit; it wakes the relay at once instead of at its next poll.
  await tx.$executeRawUnsafe(
    `WITH appended AS (INSERT INTO ${s}.outbox_event (id, topic, event_key, envelope) VALUES ${rows.join(', ')})
     SELECT pg_notify($${values.length}, '')`,
    ...values,
  );
}

/** Pairs an envelope with its definition's topic. */
export function outgoing<P>(definition: EventDefinition<string, P>, event: EventEnvelope<P>): OutgoingEvent {
  return { topic: definition.topic, event: event as EventEnvelope };
}

/** Shorthand: build the event from its definition and pair it with its topic. */
export function newEvent<P>(definition: EventDefinition<string, P>, aggregateId: string, payload: P): OutgoingEvent {
  return outgoing(definition, definition.create(aggregateId, payload));
}
