import type { OutgoingEvent } from '../bus/bus';
import type { PgTransaction } from '../db/transaction';
import type { EventDefinition, EventEnvelope } from '../events/envelope';
import { outboxChannel, quoteSchema, type RawSql } from './sql';

/**
 * Records events in the service's outbox inside the caller's transaction. They reach the bus
 * only if, and after, that transaction commits.
 */
export async function appendToOutbox(tx: RawSql, schema: string, events: OutgoingEvent[]): Promise<void> {
  const append = outboxAppend(schema, events);
  if (append) await tx.$executeRawUnsafe(append.text, ...append.values);
}

/** appendToOutbox in a PgTransaction: the events' statement is sent with COMMIT (defer). */
export function deferToOutbox(tx: PgTransaction, schema: string, events: readonly OutgoingEvent[]): void {
  const append = outboxAppend(schema, events);
  if (append) tx.defer(append);
}

/**
 * appendToOutbox's statement; null when there are no events. One round trip: the insert runs as a
 * data-modifying WITH whether or not it is read. The notify is delivered to listeners only on
 * commit; it wakes the relay at once instead of at its next poll.
 */
function outboxAppend(schema: string, events: readonly OutgoingEvent[]): { name: string; text: string; values: unknown[] } | null {
  if (events.length === 0) return null;
  return {
    name: `outbox.${schema}`,
    text: `WITH appended AS (${outboxInsertSql(schema, 1)}) SELECT pg_notify($5, '')`,
    values: [...outboxValues(events), outboxChannel(schema)],
  };
}

/**
 * The outbox insert of a statement that writes a change and its events in one round trip: a
 * data-modifying WITH entry taking the events as four array parameters from `$first` (see
 * outboxValues), in the events' order. The statement also calls `pg_notify(outboxChannel(schema), '')`
 * when there are events, as appendToOutbox does. The events are four parameters however many there
 * are, and the text depends only on schema and `first`, so it can be part of a prepared statement.
 */
export function outboxInsertSql(schema: string, first: number): string {
  const s = quoteSchema(schema);
  return `INSERT INTO ${s}.outbox_event (id, topic, event_key, envelope)
     SELECT e.id, e.topic, e.event_key, e.envelope
       FROM unnest($${first}::uuid[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::jsonb[])
            WITH ORDINALITY AS e(id, topic, event_key, envelope, n)
      ORDER BY e.n`;
}

/** The four array parameters of outboxInsertSql. */
export function outboxValues(events: readonly OutgoingEvent[]): unknown[] {
  return [
    events.map((e) => e.event.id),
    events.map((e) => e.topic),
    events.map((e) => e.event.aggregateId),
    events.map((e) => JSON.stringify(e.event)),
  ];
}

/** Pairs an envelope with its definition's topic. */
export function outgoing<P>(definition: EventDefinition<string, P>, event: EventEnvelope<P>): OutgoingEvent {
  return { topic: definition.topic, event: event as EventEnvelope };
}

/** Shorthand: build the event from its definition and pair it with its topic. */
export function newEvent<P>(definition: EventDefinition<string, P>, aggregateId: string, payload: P): OutgoingEvent {
  return outgoing(definition, definition.create(aggregateId, payload));
}
