import { z } from 'zod';
import { defineEvent, type EventEnvelope } from './envelope';
import { TOPICS } from './topics';

/** A product's figure as `GET /stock-levels` reports it, and when it was set. */
const figure = z.object({
  teamCode: z.string(),
  productUuid: z.uuid(),
  sku: z.string().nullable(),
  stock: z.number().int().nonnegative(),
  changedAt: z.iso.datetime({ offset: true }),
});

/**
 * A product's stock figure (rule S1, as `GET /stock-levels` reports it) changed. Aggregate id:
 * the product uuid. The webhooks service batches these into `stock-level-updated` per window,
 * reading the figure again at sending time.
 */
export const StockLevelChanged = defineEvent({
  type: 'stock-level.changed',
  schemaVersion: 1,
  aggregateType: 'product',
  topic: TOPICS.stockLevels,
  payload: figure.extend({ previousStock: z.number().int().nonnegative() }),
});

/**
 * A product's stock figure (rule S1) set by its catalog facts rather than by a stock movement: the
 * product became known to stock (its first figure, `previousStock` null), or print-on-demand
 * approval or activation raised the figure, or its deletion did (0 for a deleted product: nothing
 * can be held of it). A withdrawal of print-on-demand lowers a listed figure: that one is a
 * `stock-level.changed`, pushed like any fall in stock.
 * Internal: read models that follow figures (orders' fulfillability) need it; it is never pushed to
 * channels (spec section 6 pushes stock movements only; print-on-demand approval or activation
 * appears only through `GET /stock-levels`), so the webhooks service ignores it. Same topic and
 * key as `stock-level.changed`, so one product's figures arrive in the order they were set.
 */
export const StockLevelRevised = defineEvent({
  type: 'stock-level.revised',
  schemaVersion: 1,
  aggregateType: 'product',
  topic: TOPICS.stockLevels,
  payload: figure.extend({ previousStock: z.number().int().nonnegative().nullable() }),
});

export const STOCK_EVENTS = [StockLevelChanged, StockLevelRevised];

/** What every figure event carries, whichever set it. */
export type StockFigure = z.infer<typeof figure>;

/**
 * A figure a stock movement set (`stock-level.changed`) or a catalog change did
 * (`stock-level.revised`): what a read model that follows figures keeps either way.
 */
export function isStockFigureEvent(event: EventEnvelope): event is EventEnvelope<StockFigure> {
  return StockLevelChanged.is(event) || StockLevelRevised.is(event);
}
