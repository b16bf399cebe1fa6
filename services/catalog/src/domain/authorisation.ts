import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';

/**
 * Who may see and change what in the catalog. Pure decisions on the caller's identity; the use
 * cases call them before and after loading.
 *
 * - back-office identities: their own team's products and shipping methods, read and change;
 *   they may ask for deleted products explicitly (`includeDeleted`).
 * - channel identities (an integration, via the REST edge): read their own team's live products
 *   and active shipping methods; no changes, never anything deleted.
 * - service identities (our own services, e.g. orders): read any team, naming it with `teamCode`
 *   on team-wide reads; no changes (products belong to merchants).
 *
 * Another team's data is invisible: reads give null (or leave it out), changes give the same
 * not-found Problem as something that does not exist.
 */

/**
 * The team whose catalog a team-wide read (list, SKU validation, shipping methods) looks at.
 * @returns the team code, or null when a team identity names another team (it sees nothing there)
 * @throws Problem validation-failed when a service identity names no team
 */
export function readableTeam(identity: Identity, requested?: string | null): string | null {
  if (identity.kind === 'service') {
    if (requested == null || requested === '') {
      throw Problem.validation([{ property: 'teamCode', message: 'A service identity names the team it reads.' }]);
    }
    return requested;
  }
  return requested == null || requested === identity.teamCode ? identity.teamCode : null;
}

/** Only back-office and service identities may ask for deleted products. */
export function authoriseIncludeDeleted(identity: Identity, includeDeleted: boolean | null | undefined): boolean {
  if (!includeDeleted) return false;
  if (identity.kind === 'channel') {
    throw new Problem('forbidden', { detail: 'An integration (channel identity) cannot see deleted products.' });
  }
  return true;
}

/** Whether the caller sees this product; `includeDeleted` already authorised. */
export function mayReadProduct(identity: Identity, product: { teamCode: string; deletedAt: Date | null }, includeDeleted: boolean): boolean {
  if (product.deletedAt !== null && !(includeDeleted && identity.kind !== 'channel')) return false;
  return identity.kind === 'service' || identity.teamCode === product.teamCode;
}

/**
 * The team a change applies to: the back-office caller's own. Integrations and services do not
 * edit the catalog.
 */
export function teamForChange(identity: Identity): string {
  if (identity.kind === 'backoffice') return identity.teamCode;
  const who = identity.kind === 'channel' ? 'An integration (channel identity)' : 'A service identity';
  throw new Problem('forbidden', { detail: `${who} cannot change the catalog; a back-office identity of the team can.` });
}

/** The same Problem whether the product does not exist, is deleted, or belongs to another team. */
export function productNotFound(uuid: string): Problem {
  return Problem.notFound(`Product ${uuid} was not found.`);
}

/** The same Problem whether the shipping method does not exist, is deleted, or belongs to another team. */
export function shippingMethodNotFound(code: string): Problem {
  return Problem.notFound(`Shipping method ${code} was not found.`);
}
