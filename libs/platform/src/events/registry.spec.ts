import { randomUUID } from 'node:crypto';
import { ACCOUNTS_EVENTS, ChannelCreated, TeamCreated } from './accounts';
import { EventDecodeError, type EventEnvelope } from './envelope';
import { decodeEvent, definitionOf, encodeEvent } from './registry';
import { ALL_TOPICS } from './topics';

function envelope(overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    id: randomUUID(),
    type: 'team.created',
    schemaVersion: 1,
    occurredAt: '2026-11-01T10:00:00.000Z',
    aggregateType: 'team',
    aggregateId: 'acme',
    payload: { teamCode: 'acme', name: 'Acme', active: true },
    ...overrides,
  };
}

function decodeError(raw: string): EventDecodeError {
  try {
    decodeEvent(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(EventDecodeError);
    return err as EventDecodeError;
  }
  throw new Error('decoded');
}

describe('event registry', () => {
  it('decodes a valid event from a string or from bytes', () => {
    const event = TeamCreated.create('acme', { teamCode: 'acme', name: 'Acme', active: true });
    expect(decodeEvent(encodeEvent(event))).toEqual(event);
    expect(decodeEvent(Buffer.from(encodeEvent(event)))).toEqual(event);
    expect(TeamCreated.is(decodeEvent(encodeEvent(event)))).toBe(true);
  });

  it('accepts occurredAt with an offset', () => {
    expect(decodeEvent(JSON.stringify(envelope({ occurredAt: '2026-11-01T11:00:00+01:00' }))).occurredAt).toBe('2026-11-01T11:00:00+01:00');
  });

  it('rejects a known type whose payload breaks its schema, naming the type', () => {
    const err = decodeError(JSON.stringify(envelope({ payload: { teamCode: 'acme', name: 'Acme', active: 'yes' } })));
    expect(err.message).toMatch(/^Invalid payload for team\.created/);
    expect(err.message).toContain('active');
  });

  it('drops payload members the schema does not know', () => {
    const decoded = decodeEvent(JSON.stringify(envelope({ payload: { teamCode: 'acme', name: 'Acme', active: true, extra: 1 } })));
    expect(decoded.payload).toEqual({ teamCode: 'acme', name: 'Acme', active: true });
  });

  it('passes an unknown type (or unknown version of a known one) through with its payload untouched', () => {
    const future = envelope({ type: 'order.teleported', aggregateType: 'order', payload: { anything: ['goes'] } });
    expect(decodeEvent(JSON.stringify(future))).toEqual(future);
    const v2 = envelope({ schemaVersion: 2, payload: { renamed: true } });
    expect(decodeEvent(JSON.stringify(v2))).toEqual(v2);
  });

  it.each([
    ['not JSON', '{"id":', /not JSON/],
    ['a JSON array', '[]', /Invalid envelope/],
    ['an id that is no uuid', JSON.stringify(envelope({ id: 'e-1' })), /Invalid envelope/],
    ['no aggregate id', JSON.stringify(envelope({ aggregateId: '' })), /Invalid envelope/],
    ['a zero schema version', JSON.stringify(envelope({ schemaVersion: 0 })), /Invalid envelope/],
    ['a date without time', JSON.stringify(envelope({ occurredAt: '2026-11-01' })), /Invalid envelope/],
  ])('rejects %s', (_, raw, message) => {
    expect(decodeError(raw).message).toMatch(message);
  });

  it('knows every accounts event by type and version, each on a known topic', () => {
    for (const def of ACCOUNTS_EVENTS) {
      expect(definitionOf(def.type, def.schemaVersion)).toBe(def);
      expect(ALL_TOPICS).toContain(def.topic);
    }
    expect(new Set(ACCOUNTS_EVENTS.map((d) => `${d.type}@${d.schemaVersion}`)).size).toBe(ACCOUNTS_EVENTS.length);
    expect(definitionOf('team.created', 99)).toBeUndefined();
  });

  it('validates the payload when an event is created', () => {
    expect(() => ChannelCreated.create('acme-shop', { channelId: 'acme-shop' } as never)).toThrow();
    const e = ChannelCreated.create(
      'acme-shop',
      { channelId: 'acme-shop', teamCode: 'acme', channelCode: 'shop', name: 'Shop', active: true, standard: false },
      new Date('2026-11-01T10:00:00Z'),
    );
    expect(e).toMatchObject({ type: 'channel.created', schemaVersion: 1, aggregateType: 'channel', aggregateId: 'acme-shop', occurredAt: '2026-11-01T10:00:00.000Z' });
  });
});
