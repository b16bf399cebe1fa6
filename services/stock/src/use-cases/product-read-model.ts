import type { OutgoingEvent } from '@pf/platform/bus/bus';
import { ProductCreated, ProductDeleted, ProductUpdated } from '@pf/platform/events/catalog';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { StockLevelChanged, StockLevelRevised } from '@pf/platform/events/stock';
import { applyOnce } from '@pf/platform/outbox/inbox';
import { newEvent } from '@pf/platform/outbox/outbox';
import { pgSql } from '@pf/platform/outbox/sql';
import type { ProductFacts } from '../domain/model';
import { catalogFigureEvent, revisedFigure } from '../domain/stock-figure';
import { applyProductState, insertUnknownProducts, lockProductsRead, productUuidsAfter } from '../repositories/product-repository';
import { figuresOfProducts } from '../repositories/stock-repository';
import { changeTimeRead, changeWithEvents, STOCK_SCHEMA, type StockDeps } from './deps';

/** The inbox consumer name of the product read model. */
export const PRODUCT_READ_MODEL_CONSUMER = 'stock.product-read-model';

export type ProductEventOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/**
 * Keeps the product read model from a catalog event: at most once per event id (inbox), and only
 * when the event's state is newer than the stored one (`version`), so a replayed or out-of-order
 * event changes nothing.
 *
 * Print-on-demand and deletion changes alter a product's figure. Approval or activation and
 * deletion are not pushed (spec section 6): what the figure became is written as
 * `stock-level.revised` (never pushed), and so is the first figure of a product (0 for one that has
 * no stock), so the orders service knows a product nobody stocked is short rather than unknown. A
 * figure that falls while the product stays listed (print-on-demand withdrawn or switched off) is
 * a stock change integrations must hear of: `stock-level.changed` (catalogFigureEvent). The
 * product's row lock is taken first, as every change of a figure does, so its figure events leave
 * in the order they were set.
 */
export async function applyCatalogProductEvent(deps: StockDeps, event: EventEnvelope): Promise<ProductEventOutcome> {
  if (!(ProductCreated.is(event) || ProductUpdated.is(event) || ProductDeleted.is(event))) return 'ignored';
  const state = event.payload;
  const productUuid = state.productUuid.toLowerCase();
  return changeWithEvents(deps, async (tx) => {
    let outcome: ProductEventOutcome = 'stale';
    let events: OutgoingEvent[] = [];
    const applied = await applyOnce((fn) => fn(pgSql(tx)), STOCK_SCHEMA, PRODUCT_READ_MODEL_CONSUMER, event, async () => {
      const [known, at] = await tx.reads([lockProductsRead([productUuid]), changeTimeRead(deps)]);
      // A row the demo seeder wrote (version 0) was never announced.
      const announced = known.some((p) => p.version > 0);
      const [before] = announced ? await figuresOfProducts(tx, [productUuid]) : [undefined];
      if (!(await applyProductState(tx, state))) return;
      outcome = 'applied';
      const [after] = await figuresOfProducts(tx, [productUuid]);
      const revised = after ? revisedFigure(before, after) : null;
      if (revised) {
        const figureEvent = catalogFigureEvent(revised, state.deleted);
        const changedAt = at.toISOString();
        events = [
          figureEvent.kind === 'changed'
            ? newEvent(StockLevelChanged, productUuid, { ...figureEvent.figure, changedAt })
            : newEvent(StockLevelRevised, productUuid, { ...figureEvent.figure, changedAt }),
        ];
      }
    });
    return { result: applied ? outcome : 'duplicate', events };
  });
}

/**
 * Records products the catalog's seeder reported, at version 0, unless already known; any event
 * of the product overrides them. Used only to seed demo data before the events have arrived.
 */
export function recordSeededProducts(deps: StockDeps, products: Omit<ProductFacts, 'version'>[]): Promise<number> {
  return insertUnknownProducts(deps.prisma, products);
}

/** Products per transaction of `announceFigures`. */
const ANNOUNCE_BATCH = 500;

/**
 * Writes one `stock-level.revised` (previousStock null) with the current figure of every product
 * stock knows, a batch of products per transaction, under their row locks. For products stock
 * knew before it announced first figures: until a stock movement or a catalog change of their
 * figure, the orders service does not know their figure and counts them as covered. Safe to run
 * again (a read model given the same figure changes nothing). Returns how many were announced.
 */
export async function announceFigures(deps: StockDeps, opts: { batchSize?: number } = {}): Promise<number> {
  const batchSize = opts.batchSize ?? ANNOUNCE_BATCH;
  let after: string | null = null;
  let announced = 0;
  for (;;) {
    const from: string | null = after;
    const count: number = await changeWithEvents(deps, async (tx) => {
      const batch = await productUuidsAfter(tx, from, batchSize);
      if (batch.length === 0) return { result: 0, events: [] };
      const [, at] = await tx.reads([lockProductsRead(batch), changeTimeRead(deps)]);
      const figures = await figuresOfProducts(tx, batch);
      after = batch[batch.length - 1]!;
      const events = figures.map((f) => newEvent(StockLevelRevised, f.productUuid, { ...revisedFigure(undefined, f)!, changedAt: at.toISOString() }));
      return { result: events.length, events };
    });
    if (count === 0) return announced;
    announced += count;
  }
}
