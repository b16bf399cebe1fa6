import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import { applyStockLevelEvents, type StockDeps } from '../use-cases/stock-fulfillability';

/** Consumer group of the stock read model (the bus prefixes it per deployment). */
export const STOCK_FIGURES_GROUP = 'orders.stock-figures';

/** Events per transaction: stock sends them in bursts (a confirmation of 10 lines sends 10). */
const MAX_BATCH = 200;

/**
 * Subscribes the stock read model to stock's `stock-level.changed`, in runs of consecutive events
 * (one transaction each), in a group of its own so that a burst of stock changes never holds up
 * the teams, channels and products read models. A run that throws (database down) is retried whole
 * by the bus; the inbox makes redelivery harmless.
 */
export function consumeStockFigures(deps: StockDeps, logger: Logger): (bus: EventBus) => Promise<Subscription> {
  return (bus) =>
    bus.subscribe({
      groupId: STOCK_FIGURES_GROUP,
      topics: [TOPICS.stockLevels],
      maxBatchSize: MAX_BATCH,
      batchHandler: async (items) => {
        const outcome = await applyStockLevelEvents(
          deps,
          items.map((i) => i.event),
        );
        logger.debug({ events: items.length, ...outcome }, 'stock events consumed');
      },
    });
}
