import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';

/**
 * Who may see and change what in stock. Pure decisions on the caller's identity; the use cases
 * load the target and call these.
 *
 * - channel identities (an integration, through the REST edge): read their own team's stock
 *   figures (the feed, `Product.stock`); nothing else.
 * - back-office identities: their own team's warehouses, stock, adjustments and holds.
 * - service identities (our own services, platform operators): any team, naming it; they alone
 *   place, release and consume holds.
 *
 * Another team's data is invisible: reads give null or nothing, changes give the same not-found
 * Problem as a target that does not exist.
 */

function forbidden(detail: string): Problem {
  return new Problem('forbidden', { detail });
}

function teamCodeRequired(): Problem {
  return Problem.validation([{ property: 'teamCode', message: 'A service identity must name the team.' }]);
}

/**
 * The team whose stock figures the caller reads, or null when the caller may not see the team it
 * named (the read then finds nothing).
 */
export function teamForFigures(identity: Identity, requested?: string | null): string | null {
  if (identity.kind === 'service') {
    if (!requested) throw teamCodeRequired();
    return requested;
  }
  if (requested != null && requested !== identity.teamCode) return null;
  return identity.teamCode;
}

/** Back-office reads (warehouses, per-warehouse stock, adjustments, holds): not for integrations. */
export function teamForBackOfficeRead(identity: Identity, requested?: string | null): string | null {
  if (identity.kind === 'channel') throw forbidden('An integration (channel identity) cannot read warehouses, per-warehouse stock or holds.');
  return teamForFigures(identity, requested);
}

/** The team a change is made in: a back-office user's own team (another team reads as not found). */
export function teamForChange(identity: Identity, requested?: string | null): string {
  if (identity.kind === 'channel') throw forbidden('An integration (channel identity) cannot change warehouses or stock.');
  if (identity.kind === 'service') {
    if (!requested) throw teamCodeRequired();
    return requested;
  }
  if (requested != null && requested !== identity.teamCode) throw Problem.notFound(`Team ${requested} was not found.`);
  return identity.teamCode;
}

/** Whether the caller may see data of `teamCode` at all. */
export function maySeeTeam(identity: Identity, teamCode: string): boolean {
  return identity.kind === 'service' || identity.teamCode === teamCode;
}

/** Changes to a warehouse or stock found by id: channel identities never, another team's as not found. */
export function authoriseChange(identity: Identity, target: { teamCode: string } | null, notFound: () => Problem): void {
  if (identity.kind === 'channel') throw forbidden('An integration (channel identity) cannot change warehouses or stock.');
  if (!target || !maySeeTeam(identity, target.teamCode)) throw notFound();
}

/** Per-warehouse stock of a product is back-office information. */
export function authoriseWarehouseStockRead(identity: Identity): void {
  if (identity.kind === 'channel') throw forbidden('An integration (channel identity) cannot read per-warehouse stock.');
}

/** Holds are placed, released and consumed by the orders service only (a service identity). */
export function authoriseHolds(identity: Identity): void {
  if (identity.kind !== 'service') throw forbidden('Only service identities (the orders service) may place, release or consume holds.');
}
