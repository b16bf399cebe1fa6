import type { Identity } from '@pf/platform/identity';
import { mayReadChannel, mayReadTeam, readScopeOf } from '../domain/authorisation';
import type { Channel, Team } from '../domain/model';
import { findChannel, findTeam, listChannels } from '../repositories/accounts-repository';
import type { AccountsDeps } from './deps';

/**
 * Reads, filtered by what the caller may see. Anything outside the caller's scope reads as
 * absent (null or left out of a list), exactly like data that does not exist.
 */

/** The caller's own team; operators (service identities) name the team they want. */
export async function getTeam(deps: AccountsDeps, identity: Identity, code?: string | null): Promise<Team | null> {
  const scope = readScopeOf(identity);
  const wanted = code ?? (scope.kind === 'all' ? undefined : scope.teamCode);
  if (wanted === undefined || !mayReadTeam(scope, wanted)) return null;
  return findTeam(deps.prisma, wanted);
}

export async function getChannel(deps: AccountsDeps, identity: Identity, id: string): Promise<Channel | null> {
  const channel = await findChannel(deps.prisma, id);
  return channel && mayReadChannel(readScopeOf(identity), channel) ? channel : null;
}

/**
 * The channels of a team the caller may see: all of them for the team's back-office and
 * operators, only its own for a channel identity, none of another team's.
 */
export async function getChannels(deps: AccountsDeps, identity: Identity, teamCode?: string | null): Promise<Channel[]> {
  const scope = readScopeOf(identity);
  const wanted = teamCode ?? (scope.kind === 'all' ? undefined : scope.teamCode);
  if (wanted === undefined || !mayReadTeam(scope, wanted)) return [];
  if (scope.kind === 'channel') {
    const own = await findChannel(deps.prisma, scope.channelId);
    return own && mayReadChannel(scope, own) ? [own] : [];
  }
  return listChannels(deps.prisma, wanted);
}
