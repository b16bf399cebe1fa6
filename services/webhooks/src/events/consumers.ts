import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import type { WebhooksDeps } from '../use-cases/deps';
import { applyOrderEvent } from '../use-cases/order-events';
import { applyAccountsEvent, applyStockEvent, type Applied } from '../use-cases/read-models';

/** Consumer groups (the bus prefixes them per deployment). One per source, so a slow one holds up no other. */
export const CONSUMER_GROUPS = {
  accounts: 'webhooks.accounts',
  orders: 'webhooks.orders',
  stock: 'webhooks.stock',
} as const;

function subscriber(
  groupId: string,
  topics: string[],
  apply: (deps: WebhooksDeps, event: EventEnvelope) => Promise<Applied>,
  deps: WebhooksDeps,
  logger: Logger,
): (bus: EventBus) => Promise<Subscription> {
  return (bus) =>
    bus.subscribe({
      groupId,
      topics,
      // A handler that throws (database down) is retried by the bus; the inbox makes redelivery harmless.
      handler: async (event) => {
        const outcome = await apply(deps, event);
        logger.debug({ eventId: event.id, type: event.type, aggregateId: event.aggregateId, outcome }, 'event consumed');
      },
    });
}

/** The webhooks service's consumers: accounts (teams, channels), orders, stock levels. */
export function webhooksConsumers(deps: WebhooksDeps, logger: Logger): ((bus: EventBus) => Promise<Subscription>)[] {
  return [
    subscriber(CONSUMER_GROUPS.accounts, [TOPICS.teams, TOPICS.channels], applyAccountsEvent, deps, logger),
    subscriber(CONSUMER_GROUPS.orders, [TOPICS.orders], applyOrderEvent, deps, logger),
    subscriber(CONSUMER_GROUPS.stock, [TOPICS.stockLevels], applyStockEvent, deps, logger),
  ];
}
