import { ShippingMethodChanged } from '@pf/platform/events/catalog';
import type { Identity } from '@pf/platform/identity';
import { newEvent } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { shippingMethodNotFound, teamForChange } from '../domain/authorisation';
import { shippingMethodKey, shippingMethodState, type ShippingMethod } from '../domain/model';
import {
  newShippingMethodFields,
  shippingMethodChanges,
  type NewShippingMethodInput,
  type ShippingMethodChangeInput,
} from '../domain/shipping-methods';
import {
  insertShippingMethod,
  isUniqueViolation,
  lockShippingMethod,
  updateShippingMethod as saveShippingMethod,
  type Db,
} from '../repositories/catalog-repository';
import { changeWithEvents, nowOf, type CatalogDeps } from './deps';

export type CreateShippingMethodInput = NewShippingMethodInput;
export type UpdateShippingMethodInput = ShippingMethodChangeInput;

const changed = (m: ShippingMethod) => newEvent(ShippingMethodChanged, shippingMethodKey(m), shippingMethodState(m));

function codeTaken(code: string): Problem {
  return new Problem('conflict', { detail: `The team already has shipping method ${code}.`, extensions: { code } });
}

/**
 * Adds a shipping method to the caller's team with `shipping-method.changed` in the outbox. A code
 * whose method was deleted is revived with the new fields (its version keeps growing, so read
 * models keyed by `<team>:<code>` take the change); a live one is a conflict.
 */
export async function createShippingMethod(deps: CatalogDeps, identity: Identity, input: CreateShippingMethodInput): Promise<ShippingMethod> {
  const teamCode = teamForChange(identity);
  const { code, fields } = newShippingMethodFields(input);
  try {
    return await changeWithEvents(deps, async (tx) => {
      const existing = await lockShippingMethod(tx, teamCode, code);
      if (existing && existing.deletedAt === null) throw codeTaken(code);
      const at = nowOf(deps);
      const method = existing
        ? await saveShippingMethod(tx, { teamCode, code }, { ...fields, deletedAt: null }, at)
        : await insertShippingMethod(tx, { teamCode, code, fields, at });
      return { result: method, events: [changed(method)] };
    });
  } catch (err) {
    // Two concurrent creates of a new code: the primary key lets one in.
    if (isUniqueViolation(err)) throw codeTaken(code);
    throw err;
  }
}

async function lockOwnLiveMethod(tx: Db, teamCode: string, code: string): Promise<ShippingMethod> {
  const method = await lockShippingMethod(tx, teamCode, code);
  if (!method || method.deletedAt !== null) throw shippingMethodNotFound(code);
  return method;
}

/** Changes a live shipping method of the caller's team; an event only when something changed. */
export async function updateShippingMethod(
  deps: CatalogDeps,
  identity: Identity,
  code: string,
  input: UpdateShippingMethodInput,
): Promise<ShippingMethod> {
  const teamCode = teamForChange(identity);
  return changeWithEvents(deps, async (tx) => {
    const current = await lockOwnLiveMethod(tx, teamCode, code);
    const change = shippingMethodChanges(current, input);
    if (Object.keys(change).length === 0) return { result: current, events: [] };
    const updated = await saveShippingMethod(tx, { teamCode, code }, change, nowOf(deps));
    return { result: updated, events: [changed(updated)] };
  });
}

/** Soft-deletes a shipping method: orders can no longer choose it; the event says `deleted: true`. */
export async function deleteShippingMethod(deps: CatalogDeps, identity: Identity, code: string): Promise<ShippingMethod> {
  const teamCode = teamForChange(identity);
  return changeWithEvents(deps, async (tx) => {
    await lockOwnLiveMethod(tx, teamCode, code);
    const at = nowOf(deps);
    const deleted = await saveShippingMethod(tx, { teamCode, code }, { deletedAt: at }, at);
    return { result: deleted, events: [changed(deleted)] };
  });
}
