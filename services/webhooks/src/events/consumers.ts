import type { EventBus, Subscription } from '@pf/platform/bus/bus';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import type { Logger } from '@pf/platform/logging';
import type { WebhooksDeps } from '../use-cases/deps';
import { applyOrderEvents } from '../use-cases/order-events';
import { applyAccountsEvent, applyStockEvents, type Applied } from '../use-cases/read-models';

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

/** Events per transaction of the batched consumers. */
const MAX_BATCH = 200;

function batchSubscriber(
  groupId: string,
  topics: string[],
  apply: (deps: WebhooksDeps, events: readonly EventEnvelope[]) => Promise<Applied[]>,
  deps: WebhooksDeps,
  logger: Logger,
): (bus: EventBus) => Promise<Subscription> {
  return (bus) =>
    bus.subscribe({
      groupId,
      topics,
      maxBatchSize: MAX_BATCH,
      // A run that throws (database down) is retried whole by the bus; the inbox makes redelivery harmless.
      batchHandler: async (items) => {
        const outcomes = await apply(
          deps,
          items.map((i) => i.event),
        );
        logger.debug({ groupId, events: items.length, applied: outcomes.filter((o) => o === 'applied').length }, 'events consumed');
      },
    });
}

/**
 * The webhooks service's consumers: accounts (teams, channels) one event at a time; orders and
 * stock levels in runs, one transaction per run.
 */
export function webhooksConsumers(deps: WebhooksDeps, logger: Logger): ((bus: EventBus) => Promise<Subscription>)[] {
  return [
    subscriber(CONSUMER_GROUPS.accounts, [TOPICS.teams, TOPICS.channels], applyAccountsEvent, deps, logger),
    batchSubscriber(CONSUMER_GROUPS.orders, [TOPICS.orders], applyOrderEvents, deps, logger),
    batchSubscriber(CONSUMER_GROUPS.stock, [TOPICS.stockLevels], applyStockEvents, deps, logger),
  ];
}
