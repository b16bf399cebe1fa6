import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import type { OrdersDeps } from '../use-cases/deps';
import { applyReadModelEvent } from '../use-cases/read-models';

/** Consumer group of the read models (the bus prefixes it per deployment). */
export const READ_MODEL_GROUP = 'orders.read-models';

/**
 * Subscribes the read models to accounts' teams and channels and catalog's products and shipping
 * methods. A handler that throws (database down) is retried by the bus; the inbox makes
 * redelivery harmless.
 */
export function consumeReadModels(deps: Pick<OrdersDeps, 'prisma'>, logger: Logger): (bus: EventBus) => Promise<Subscription> {
  return (bus) =>
    bus.subscribe({
      groupId: READ_MODEL_GROUP,
      topics: [TOPICS.teams, TOPICS.channels, TOPICS.products, TOPICS.shippingMethods],
      handler: async (event) => {
        const outcome = await applyReadModelEvent(deps, event);
        logger.debug({ eventId: event.id, type: event.type, aggregateId: event.aggregateId, outcome }, 'read model event');
      },
    });
}
