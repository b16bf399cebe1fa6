import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import { applyCatalogProductEvent } from '../use-cases/product-read-model';
import type { StockDeps } from '../use-cases/deps';

/** Consumer group of the product read model (the bus prefixes it per deployment). */
export const PRODUCT_CONSUMER_GROUP = 'stock.catalog-products';

/**
 * Subscribes the product read model to the catalog's product events. A handler that throws (the
 * database is down) is retried by the bus; the inbox makes redelivery harmless.
 */
export function consumeCatalogProducts(deps: StockDeps, logger: Logger): (bus: EventBus) => Promise<Subscription> {
  return (bus) =>
    bus.subscribe({
      groupId: PRODUCT_CONSUMER_GROUP,
      topics: [TOPICS.products],
      handler: async (event) => {
        const outcome = await applyCatalogProductEvent(deps, event);
        logger.debug({ eventId: event.id, type: event.type, productUuid: event.aggregateId, outcome }, 'catalog product event');
      },
    });
}
