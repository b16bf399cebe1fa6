import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { readableTeam } from '../domain/authorisation';
import type { ShippingMethod } from '../domain/model';
import { byPreference, countryFilterViolations, servesCountry } from '../domain/shipping-methods';
import { findShippingMethod, listShippingMethods } from '../repositories/catalog-repository';
import type { CatalogDeps } from './deps';

/** Integrations see only active methods: the ones confirm accepts. */
function mayIncludeInactive(identity: Identity, includeInactive: boolean | null | undefined): boolean {
  if (!includeInactive) return false;
  if (identity.kind === 'channel') {
    throw new Problem('forbidden', { detail: 'An integration (channel identity) sees only active shipping methods.' });
  }
  return true;
}

/**
 * The team's live shipping methods in order of preference (priority, then code): active ones
 * only unless a back-office or service caller asks for inactive ones too; with `countryCode`,
 * only those delivering there.
 */
export async function getShippingMethods(
  deps: CatalogDeps,
  identity: Identity,
  args: { includeInactive?: boolean | null; countryCode?: string | null; teamCode?: string | null },
): Promise<ShippingMethod[]> {
  const violations = args.countryCode != null ? countryFilterViolations(args.countryCode, 'countryCode') : [];
  if (violations.length > 0) throw Problem.validation(violations);
  const includeInactive = mayIncludeInactive(identity, args.includeInactive);
  const teamCode = readableTeam(identity, args.teamCode);
  if (teamCode === null) return [];
  const methods = await listShippingMethods(deps.prisma, teamCode, includeInactive);
  return methods.filter((m) => args.countryCode == null || servesCountry(m, args.countryCode)).sort(byPreference);
}

/** One live shipping method of the team by code; an integration sees it only while active. */
export async function getShippingMethod(
  deps: CatalogDeps,
  identity: Identity,
  code: string,
  teamCode?: string | null,
): Promise<ShippingMethod | null> {
  const team = readableTeam(identity, teamCode);
  if (team === null) return null;
  const method = await findShippingMethod(deps.prisma, team, code);
  if (!method || method.deletedAt !== null || (identity.kind === 'channel' && !method.active)) return null;
  return method;
}
