import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';

/** The channel a webhook operation is about. */
export interface ChannelRef {
  channelId: string;
  teamCode: string;
  channelCode: string;
}

/**
 * Splits a channel id into team and channel code. Team codes never contain a hyphen (accounts
 * enforces it), so the first hyphen separates them.
 */
export function parseChannelId(channelId: string): ChannelRef | null {
  const i = channelId.indexOf('-');
  if (i <= 0 || i === channelId.length - 1) return null;
  return { channelId, teamCode: channelId.slice(0, i), channelCode: channelId.slice(i + 1) };
}

const notFound = (channelId: string) => Problem.notFound(`Channel ${channelId} was not found.`);

/**
 * The channel an operation acts on. A channel identity (an integration through the REST edge)
 * acts on its own channel: `channelId` may be omitted, and any other value is not found. A
 * back-office user names a channel of their own team; service identities (platform operators)
 * name any channel.
 */
export function targetChannel(identity: Identity, channelId?: string | null): ChannelRef {
  if (identity.kind === 'channel') {
    if (channelId != null && channelId !== identity.channelId) throw notFound(channelId);
    const ref = parseChannelId(identity.channelId);
    if (!ref) throw notFound(identity.channelId);
    return ref;
  }
  if (channelId == null) {
    throw Problem.validation([{ property: 'channelId', message: 'Name the channel.' }]);
  }
  const ref = parseChannelId(channelId);
  if (!ref) throw notFound(channelId);
  if (identity.kind === 'backoffice' && ref.teamCode !== identity.teamCode) throw notFound(channelId);
  return ref;
}

/** The delivery log and manual redelivery are back-office tools: integrations are refused. */
export function authoriseBackOffice(identity: Identity): void {
  if (identity.kind === 'channel') {
    throw new Problem('forbidden', { detail: 'The delivery log is for the back-office; an integration (channel identity) cannot read it.' });
  }
}

/** Whether the caller may see something of `teamCode` (a delivery found by id). */
export function maySeeTeam(identity: Identity, teamCode: string): boolean {
  return identity.kind === 'service' || identity.teamCode === teamCode;
}
