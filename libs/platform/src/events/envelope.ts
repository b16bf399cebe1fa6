import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * Every event on the bus travels in this envelope. `type` + `schemaVersion` select the payload
 * schema; `aggregateId` is the Kafka key, so one aggregate's events stay in order.
 */
export interface EventEnvelope<P = unknown, T extends string = string> {
  id: string;
  type: T;
  schemaVersion: number;
  occurredAt: string;
  aggregateType: string;
  aggregateId: string;
  payload: P;
}

export const envelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
  aggregateType: z.string().min(1),
  aggregateId: z.string().min(1),
  payload: z.unknown(),
});

/** A typed, runtime-validated event definition: one per event type and schema version. */
export interface EventDefinition<T extends string, P> {
  type: T;
  schemaVersion: number;
  aggregateType: string;
  /** Logical topic name (see topics.ts); a deployment may prefix it. */
  topic: string;
  payload: z.ZodType<P>;
  /** Builds an envelope with a fresh id, validating the payload first. */
  create(aggregateId: string, payload: P, occurredAt?: Date): EventEnvelope<P, T>;
  is(event: EventEnvelope): event is EventEnvelope<P, T>;
}

export function defineEvent<T extends string, P>(spec: {
  type: T;
  schemaVersion: number;
  aggregateType: string;
  topic: string;
  payload: z.ZodType<P>;
}): EventDefinition<T, P> {
  return {
    ...spec,
    create(aggregateId, payload, occurredAt = new Date()) {
      return {
        id: randomUUID(),
        type: spec.type,
        schemaVersion: spec.schemaVersion,
        occurredAt: occurredAt.toISOString(),
        aggregateType: spec.aggregateType,
        aggregateId,
        payload: spec.payload.parse(payload),
      };
    },
    is(event): event is EventEnvelope<P, T> {
      return event.type === spec.type && event.schemaVersion === spec.schemaVersion;
    },
  };
}

/** Thrown when bytes from the bus are not an event we know how to read. */
export class EventDecodeError extends Error {
  override name = 'EventDecodeError';
}
