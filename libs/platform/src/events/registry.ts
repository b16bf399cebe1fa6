import { ACCOUNTS_EVENTS } from './accounts';
import { CATALOG_EVENTS } from './catalog';
import { ORDER_EVENTS } from './orders';
import { STOCK_EVENTS } from './stock';
import { envelopeSchema, EventDecodeError, type EventDefinition, type EventEnvelope } from './envelope';

/** Every event definition the platform knows. Later modules add their lists here. */
const DEFINITIONS: EventDefinition<string, unknown>[] = [...ACCOUNTS_EVENTS, ...CATALOG_EVENTS, ...STOCK_EVENTS, ...ORDER_EVENTS] as EventDefinition<string, unknown>[];

const byKey = new Map(DEFINITIONS.map((d) => [`${d.type}@${d.schemaVersion}`, d]));

export function definitionOf(type: string, schemaVersion: number): EventDefinition<string, unknown> | undefined {
  return byKey.get(`${type}@${schemaVersion}`);
}

/**
 * Parses and validates an event read from the bus. Unknown types are returned with the payload
 * unvalidated (a newer producer may know more events than this consumer); a known type whose
 * payload breaks its schema is an error.
 */
export function decodeEvent(raw: string | Buffer): EventEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString());
  } catch {
    throw new EventDecodeError('Event is not JSON');
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) throw new EventDecodeError(`Invalid envelope: ${envelope.error.message}`);
  const def = definitionOf(envelope.data.type, envelope.data.schemaVersion);
  if (!def) return envelope.data as EventEnvelope;
  const payload = def.payload.safeParse(envelope.data.payload);
  if (!payload.success) {
    throw new EventDecodeError(`Invalid payload for ${envelope.data.type}: ${payload.error.message}`);
  }
  return { ...envelope.data, payload: payload.data } as EventEnvelope;
}

export function encodeEvent(event: EventEnvelope): string {
  return JSON.stringify(event);
}
