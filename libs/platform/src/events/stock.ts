import { z } from 'zod';
import { defineEvent } from './envelope';
import { TOPICS } from './topics';

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
  payload: z.object({
    teamCode: z.string(),
    productUuid: z.uuid(),
    sku: z.string().nullable(),
    stock: z.number().int().nonnegative(),
    previousStock: z.number().int().nonnegative(),
    changedAt: z.iso.datetime({ offset: true }),
  }),
});

export const STOCK_EVENTS = [StockLevelChanged];
