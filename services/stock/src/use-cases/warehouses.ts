import { randomUUID } from 'node:crypto';
import type { Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import { authoriseChange, authoriseWarehouseStockRead, maySeeTeam, teamForBackOfficeRead, teamForChange } from '../domain/authorisation';
import type { Warehouse } from '../domain/model';
import { countryCodeViolations, isUuid, nameViolations, warehouseCodeViolations, warehouseCountryCode } from '../domain/validation';
import { lockProductsRead } from '../repositories/product-repository';
import {
  findWarehouse,
  insertWarehouse,
  isUniqueViolation,
  listWarehouses as listTeamWarehouses,
  lockWarehouse,
  productsStockedIn,
  updateWarehouse as saveWarehouse,
} from '../repositories/warehouse-repository';
import { changeTimeRead, changeWithEvents, figuresOf, stockLevelEvents, type StockDeps } from './deps';

export interface CreateWarehouseInput {
  /** Service identities name the team; a back-office user's own team is implied. */
  teamCode?: string | null;
  code: string;
  name: string;
  countryCode: string;
  enabled?: boolean | null;
}

export interface UpdateWarehouseInput {
  name?: string | null;
  countryCode?: string | null;
  enabled?: boolean | null;
}

export function warehouseNotFound(id: string): Problem {
  return Problem.notFound(`Warehouse ${id} was not found.`);
}

/** The team's warehouses by code; another team's read as none. */
export async function listWarehouses(deps: StockDeps, identity: Identity, teamCode?: string | null): Promise<Warehouse[]> {
  const team = teamForBackOfficeRead(identity, teamCode);
  return team ? listTeamWarehouses(deps.prisma, team) : [];
}

/** Adds a warehouse to a team. A new warehouse holds no stock, so no figure changes. */
export async function createWarehouse(deps: StockDeps, identity: Identity, input: CreateWarehouseInput): Promise<Warehouse> {
  const teamCode = teamForChange(identity, input.teamCode);
  const violations: Violation[] = [
    ...warehouseCodeViolations(input.code, 'input.code'),
    ...nameViolations(input.name, 'input.name'),
    ...countryCodeViolations(input.countryCode, 'input.countryCode'),
  ];
  if (violations.length > 0) throw Problem.validation(violations);
  try {
    return await insertWarehouse(deps.prisma, {
      id: randomUUID(),
      teamCode,
      code: input.code,
      name: input.name.trim(),
      countryCode: warehouseCountryCode(input.countryCode),
      enabled: input.enabled ?? true,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Problem('conflict', { detail: `The team already has a warehouse with code ${input.code}.` });
    throw err;
  }
}

/**
 * Renames a warehouse, changes its country, or enables/disables it. Enabling or disabling changes
 * the figure of every product stocked there: one `stock-level.changed` per product whose figure
 * changed (products locked in uuid order after the warehouse, like every figure change).
 */
export async function updateWarehouse(deps: StockDeps, identity: Identity, id: string, input: UpdateWarehouseInput): Promise<Warehouse> {
  const violations: Violation[] = [
    ...(input.name != null ? nameViolations(input.name, 'input.name') : []),
    ...(input.countryCode != null ? countryCodeViolations(input.countryCode, 'input.countryCode') : []),
  ];
  return changeWithEvents(deps, async (tx) => {
    const current = isUuid(id) ? await lockWarehouse(tx, id) : null;
    authoriseChange(identity, current, () => warehouseNotFound(id));
    if (violations.length > 0) throw Problem.validation(violations);
    const change: { name?: string; countryCode?: string; enabled?: boolean } = {};
    if (input.name != null && input.name.trim() !== current!.name) change.name = input.name.trim();
    if (input.countryCode != null && warehouseCountryCode(input.countryCode) !== current!.countryCode) change.countryCode = warehouseCountryCode(input.countryCode);
    if (input.enabled != null && input.enabled !== current!.enabled) change.enabled = input.enabled;
    if (Object.keys(change).length === 0) return { result: current!, events: [] };
    if (change.enabled === undefined) return { result: await saveWarehouse(tx, id, change), events: [] };
    const [products, at] = await tx.reads([lockProductsRead(await productsStockedIn(tx, id)), changeTimeRead(deps)]);
    const before = await figuresOf(tx, products);
    const updated = await saveWarehouse(tx, id, change);
    const after = await figuresOf(tx, products);
    return { result: updated, events: stockLevelEvents(before, after, at) };
    // A warehouse may stock the whole catalogue: one event per product (100 000 of them) may take
    // far longer than a hold. Rare, and the product locks it holds meanwhile only delay holds.
  }, { timeoutMs: 300_000 });
}

/** One warehouse by id; another team's (or none) reads as null. Not for integrations. */
export async function getWarehouse(deps: StockDeps, identity: Identity, id: string): Promise<Warehouse | null> {
  authoriseWarehouseStockRead(identity);
  const w = isUuid(id) ? await findWarehouse(deps.pool, id) : null;
  return w && maySeeTeam(identity, w.teamCode) ? w : null;
}
