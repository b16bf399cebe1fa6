import { randomUUID } from 'node:crypto';
import { ProductCreated } from '@pf/platform/events/catalog';
import type { Identity } from '@pf/platform/identity';
import { databaseClock } from '@pf/platform/db/clock';
import { outgoing } from '@pf/platform/outbox/outbox';
import { teamForChange } from '../domain/authorisation';
import { productState, type Product } from '../domain/model';
import { newProductFields, skuTaken, type NewProductInput } from '../domain/products';
import { insertProduct, isUniqueViolation } from '../repositories/catalog-repository';
import { changeWithEvents, nowOf, type CatalogDeps } from './deps';

export type CreateProductInput = NewProductInput;

/**
 * Adds a product to the caller's team (version 1) with `product.created` in the outbox. A SKU
 * already used by a live product of the team is a conflict; the partial unique index decides it,
 * so of two concurrent creates with one SKU exactly one succeeds.
 */
export async function createProduct(deps: CatalogDeps, identity: Identity, input: CreateProductInput): Promise<Product> {
  const teamCode = teamForChange(identity);
  const fields = newProductFields(input);
  try {
    return await changeWithEvents(deps, async (tx) => {
      const product = await insertProduct(tx, { uuid: randomUUID(), teamCode, fields, at: nowOf(deps) });
      const at = await databaseClock(tx);
      return { result: product, events: [outgoing(ProductCreated, ProductCreated.create(product.uuid, productState(product), at))] };
    });
  } catch (err) {
    if (isUniqueViolation(err) && fields.sku !== null) throw skuTaken(fields.sku);
    throw err;
  }
}
