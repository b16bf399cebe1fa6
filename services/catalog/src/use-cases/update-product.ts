import { ProductDeleted, ProductUpdated } from '@pf/platform/events/catalog';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { Problem } from '@pf/platform/problems';
import { productNotFound, teamForChange } from '../domain/authorisation';
import { productState, type Product } from '../domain/model';
import { isUuid } from '../domain/pagination';
import { productChanges, skuTaken, type ProductChangeInput } from '../domain/products';
import { isUniqueViolation, lockProduct, updateProduct as saveProduct, type Db } from '../repositories/catalog-repository';
import { changeWithEvents, nowOf, type CatalogDeps } from './deps';

export type UpdateProductInput = ProductChangeInput;

/**
 * Locks a live product of the caller's team; anything else (malformed uuid, unknown, deleted,
 * another team's) is the same not-found. With `expectedVersion` a change made meanwhile by
 * someone else is a conflict instead of being overwritten.
 */
async function lockOwnLiveProduct(tx: Db, teamCode: string, uuid: string, expectedVersion: number | null | undefined): Promise<Product> {
  const product = isUuid(uuid) ? await lockProduct(tx, uuid.toLowerCase()) : null;
  if (!product || product.teamCode !== teamCode || product.deletedAt !== null) throw productNotFound(uuid);
  if (expectedVersion != null && expectedVersion !== product.version) {
    throw new Problem('conflict', {
      detail: `Product ${uuid} is at version ${product.version}, not ${expectedVersion}: it changed meanwhile.`,
      extensions: { version: product.version },
    });
  }
  return product;
}

/**
 * Changes a product; when something actually changed, `version` grows by one and
 * `product.updated` (full state) goes to the outbox in the same transaction.
 */
export async function updateProduct(
  deps: CatalogDeps,
  identity: Identity,
  uuid: string,
  input: UpdateProductInput,
  expectedVersion?: number | null,
): Promise<Product> {
  const teamCode = teamForChange(identity);
  let newSku: string | null | undefined;
  try {
    return await changeWithEvents(deps, async (tx) => {
      const current = await lockOwnLiveProduct(tx, teamCode, uuid, expectedVersion);
      const change = productChanges(current, input);
      if (Object.keys(change).length === 0) return { result: current, events: [] };
      newSku = change.sku;
      const updated = await saveProduct(tx, current.uuid, change, nowOf(deps));
      const at = await databaseClock(tx);
      return { result: updated, events: [outgoing(ProductUpdated, ProductUpdated.create(updated.uuid, productState(updated), at))] };
    });
  } catch (err) {
    if (isUniqueViolation(err) && newSku) throw skuTaken(newSku);
    throw err;
  }
}

/**
 * Soft-deletes a product: it stays in the table (history, read models) but no read shows it and
 * its SKU is free again. `product.deleted` carries the final state (`deleted: true`).
 */
export async function deleteProduct(deps: CatalogDeps, identity: Identity, uuid: string, expectedVersion?: number | null): Promise<Product> {
  const teamCode = teamForChange(identity);
  return changeWithEvents(deps, async (tx) => {
    const current = await lockOwnLiveProduct(tx, teamCode, uuid, expectedVersion);
    const at = nowOf(deps);
    const deleted = await saveProduct(tx, current.uuid, { deletedAt: at }, at);
    const stamped = await databaseClock(tx);
    return { result: deleted, events: [outgoing(ProductDeleted, ProductDeleted.create(deleted.uuid, productState(deleted), stamped))] };
  });
}
