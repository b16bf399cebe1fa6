import { ProductCreated, ProductDeleted, ProductUpdated } from '@pf/platform/events/catalog';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { applyOnce } from '@pf/platform/outbox/inbox';
import type { ProductFacts } from '../domain/model';
import type { Prisma } from '../generated/prisma/client';
import { applyProductState, insertUnknownProducts } from '../repositories/product-repository';
import { STOCK_SCHEMA, type StockDeps } from './deps';

/** The inbox consumer name of the product read model. */
export const PRODUCT_READ_MODEL_CONSUMER = 'stock.product-read-model';

export type ProductEventOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/**
 * Keeps the product read model from a catalog event: at most once per event id (inbox), and only
 * when the event's state is newer than the stored one (`version`), so a replayed or out-of-order
 * event changes nothing. Print-on-demand and deletion changes alter a product's figure, but no
 * `stock-level.changed` is written for them: the contract pushes only stock movements (spec
 * section 6); such changes appear through GET /stock-levels.
 */
export async function applyCatalogProductEvent(deps: StockDeps, event: EventEnvelope): Promise<ProductEventOutcome> {
  if (!(ProductCreated.is(event) || ProductUpdated.is(event) || ProductDeleted.is(event))) return 'ignored';
  let outcome: ProductEventOutcome = 'stale';
  const applied = await applyOnce<Prisma.TransactionClient>(
    (fn) => deps.prisma.$transaction(fn),
    STOCK_SCHEMA,
    PRODUCT_READ_MODEL_CONSUMER,
    event,
    async (tx) => {
      if (await applyProductState(tx, event.payload)) outcome = 'applied';
    },
  );
  return applied ? outcome : 'duplicate';
}

/**
 * Records products the catalog's seeder reported, at version 0, unless already known; any event
 * of the product overrides them. Used only to seed demo data before the events have arrived.
 */
export function recordSeededProducts(deps: StockDeps, products: Omit<ProductFacts, 'version'>[]): Promise<number> {
  return insertUnknownProducts(deps.prisma, products);
}
