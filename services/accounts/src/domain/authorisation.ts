import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';

/**
 * Who may see and change what in accounts. Pure decisions on the caller's identity and the team
 * the target belongs to; the use cases load the target and call these.
 *
 * - service identities (platform operators, our own services such as the REST edge): everything,
 *   and they alone create teams, (de)activate teams and ask `channelTokenCheck`.
 * - back-office identities: their own team only (rename it, manage its channels and tokens).
 * - channel identities (an integration, via the edge): read their own team and their own channel;
 *   no changes.
 *
 * Data of another team is invisible: reads give null, changes give the same not-found Problem as
 * a target that does not exist, never a forbidden that would confirm it exists.
 */
export type ReadScope =
  | { kind: 'all' }
  | { kind: 'team'; teamCode: string }
  | { kind: 'channel'; teamCode: string; channelId: string };

export function readScopeOf(identity: Identity): ReadScope {
  switch (identity.kind) {
    case 'service':
      return { kind: 'all' };
    case 'backoffice':
      return { kind: 'team', teamCode: identity.teamCode };
    case 'channel':
      return { kind: 'channel', teamCode: identity.teamCode, channelId: identity.channelId };
  }
}

export function mayReadTeam(scope: ReadScope, teamCode: string): boolean {
  return scope.kind === 'all' || scope.teamCode === teamCode;
}

export function mayReadChannel(scope: ReadScope, channel: { id: string; teamCode: string }): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'team':
      return scope.teamCode === channel.teamCode;
    case 'channel':
      return scope.teamCode === channel.teamCode && scope.channelId === channel.id;
  }
}

/** The same Problem whether the team does not exist or belongs to someone else. */
export function teamNotFound(code: string): Problem {
  return Problem.notFound(`Team ${code} was not found.`);
}

/** The same Problem whether the channel does not exist or belongs to another team. */
export function channelNotFound(id: string): Problem {
  return Problem.notFound(`Channel ${id} was not found.`);
}

function forbidden(detail: string): Problem {
  return new Problem('forbidden', { detail });
}

function refuseChannelIdentity(identity: Identity): void {
  if (identity.kind === 'channel') throw forbidden('An integration (channel identity) cannot change accounts.');
}

export function authoriseCreateTeam(identity: Identity): void {
  if (identity.kind !== 'service') throw forbidden('Only platform operators (service identities) create teams.');
}

/**
 * Renaming: the team's back-office or an operator. (De)activating: operators only.
 * @param team the team as loaded, or null when it does not exist
 */
export function authoriseUpdateTeam(
  identity: Identity,
  code: string,
  team: { code: string } | null,
  change: { name: boolean; active: boolean },
): void {
  refuseChannelIdentity(identity);
  if (!team || (identity.kind === 'backoffice' && identity.teamCode !== team.code)) throw teamNotFound(code);
  if (change.active && identity.kind !== 'service') {
    throw forbidden('Only platform operators (service identities) activate or deactivate a team.');
  }
}

/**
 * Channel and token administration (create, rename, (de)activate, issue and revoke tokens).
 * @param channel the channel as loaded, or null when it does not exist
 */
export function authoriseChannelAdministration(
  identity: Identity,
  channelId: string,
  channel: { teamCode: string } | null,
): void {
  refuseChannelIdentity(identity);
  if (!channel || (identity.kind === 'backoffice' && identity.teamCode !== channel.teamCode)) {
    throw channelNotFound(channelId);
  }
}

/**
 * The team a new channel is added to: a back-office user's own team (naming another is
 * not-found); an operator must name one.
 * @returns the team code, or undefined when an operator named none (a validation failure)
 */
export function teamForNewChannel(identity: Identity, requested: string | undefined | null): string | undefined {
  refuseChannelIdentity(identity);
  if (identity.kind === 'backoffice') {
    if (requested != null && requested !== identity.teamCode) throw teamNotFound(requested);
    return identity.teamCode;
  }
  return requested ?? undefined;
}

/** `channelTokenCheck` reveals facts about any team's credentials: our own services only. */
export function authoriseTokenCheck(identity: Identity): void {
  if (identity.kind !== 'service') throw forbidden('Only service identities may check channel tokens.');
}
