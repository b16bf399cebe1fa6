import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import { ApiTokenIssued, ApiTokenRevoked, ChannelCreated, ChannelUpdated, TeamUpdated } from '@pf/platform/events/accounts';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import type { AuthCache } from './auth-cache';

/** The team whose cached credentials an accounts event may have changed; undefined when none. */
export function teamAffectedBy(event: EventEnvelope): string | undefined {
  if (TeamUpdated.is(event)) return event.payload.teamCode;
  if (ChannelUpdated.is(event) || ChannelCreated.is(event)) return event.payload.teamCode;
  if (ApiTokenIssued.is(event) || ApiTokenRevoked.is(event)) return event.payload.teamCode;
  return undefined;
}

/**
 * Every edge replica drops its own cached credentials, so each consumes the accounts events in a
 * consumer group of its own (unique per process), from the newest event on: what happened before
 * it started cannot be in its cache.
 */
export function subscribeAuthCacheInvalidation(bus: EventBus, cache: AuthCache, logger: Logger): Promise<Subscription> {
  return bus.subscribe({
    groupId: `rest-edge-auth-cache.${hostname()}.${randomUUID()}`,
    ephemeral: true,
    topics: [TOPICS.teams, TOPICS.channels, TOPICS.apiTokens],
    fromBeginning: false,
    handler: async (event) => {
      const teamCode = teamAffectedBy(event);
      if (teamCode === undefined) return;
      cache.invalidateTeam(teamCode, event.type);
      logger.debug({ teamCode, eventType: event.type, eventId: event.id }, 'cached credentials dropped');
    },
  });
}
