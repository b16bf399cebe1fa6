import type { ChannelCreated, TeamCreated } from '@pf/platform/events/accounts';

/** Full team state as accounts' events carry it. */
export type TeamState = Parameters<typeof TeamCreated.create>[1];
/** Full channel state as accounts' events carry it. */
export type ChannelState = Parameters<typeof ChannelCreated.create>[1];
