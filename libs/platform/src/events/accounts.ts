import { z } from 'zod';
import { defineEvent } from './envelope';
import { TOPICS } from './topics';

/** Full state of a team after the change, so a read model can be rebuilt from the latest event. */
export const teamState = z.object({
  teamCode: z.string(),
  name: z.string(),
  active: z.boolean(),
});

/** Full state of a channel after the change. `standard` marks the team's Standard channel. */
export const channelState = z.object({
  channelId: z.string(),
  teamCode: z.string(),
  channelCode: z.string(),
  name: z.string(),
  active: z.boolean(),
  standard: z.boolean(),
});

const tokenRef = z.object({
  tokenId: z.uuid(),
  channelId: z.string(),
  teamCode: z.string(),
});

export const TeamCreated = defineEvent({
  type: 'team.created',
  schemaVersion: 1,
  aggregateType: 'team',
  topic: TOPICS.teams,
  payload: teamState,
});

export const TeamUpdated = defineEvent({
  type: 'team.updated',
  schemaVersion: 1,
  aggregateType: 'team',
  topic: TOPICS.teams,
  payload: teamState,
});

export const ChannelCreated = defineEvent({
  type: 'channel.created',
  schemaVersion: 1,
  aggregateType: 'channel',
  topic: TOPICS.channels,
  payload: channelState,
});

export const ChannelUpdated = defineEvent({
  type: 'channel.updated',
  schemaVersion: 1,
  aggregateType: 'channel',
  topic: TOPICS.channels,
  payload: channelState,
});

/** A new token was issued for a channel; `revokedTokenId` is the one it replaced, if any. */
export const ApiTokenIssued = defineEvent({
  type: 'api-token.issued',
  schemaVersion: 1,
  aggregateType: 'channel',
  topic: TOPICS.apiTokens,
  payload: tokenRef.extend({ revokedTokenId: z.uuid().nullable() }),
});

export const ApiTokenRevoked = defineEvent({
  type: 'api-token.revoked',
  schemaVersion: 1,
  aggregateType: 'channel',
  topic: TOPICS.apiTokens,
  payload: tokenRef,
});

export const ACCOUNTS_EVENTS = [TeamCreated, TeamUpdated, ChannelCreated, ChannelUpdated, ApiTokenIssued, ApiTokenRevoked];
