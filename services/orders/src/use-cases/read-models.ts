import { ChannelCreated, ChannelUpdated, TeamCreated, TeamUpdated } from '@pf/platform/events/accounts';
import { ProductCreated, ProductDeleted, ProductUpdated, ShippingMethodChanged } from '@pf/platform/events/catalog';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { applyOnce } from '@pf/platform/outbox/inbox';
import { ORDERS_SCHEMA } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { applyChannelState, applyProductState, applyShippingMethodState, applyTeamState } from '../repositories/read-model-repository';
import type { OrdersDeps } from './deps';

/** Inbox consumer name of the read models. */
export const READ_MODEL_CONSUMER = 'orders.read-models';

export type ReadModelOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/**
 * Keeps the local read models of other services' facts (principle 1) from their events: products
 * and shipping methods (catalog; newest `version` wins), teams and channels (accounts; newest
 * `occurredAt` wins). At most once per event id (inbox), so a redelivered or replayed event
 * changes nothing.
 */
export async function applyReadModelEvent(deps: Pick<OrdersDeps, 'prisma'>, event: EventEnvelope): Promise<ReadModelOutcome> {
  let apply: ((tx: Prisma.TransactionClient) => Promise<boolean>) | undefined;
  if (ProductCreated.is(event) || ProductUpdated.is(event) || ProductDeleted.is(event)) apply = (tx) => applyProductState(tx, event.payload, new Date(event.occurredAt));
  else if (ShippingMethodChanged.is(event)) apply = (tx) => applyShippingMethodState(tx, event.payload);
  else if (TeamCreated.is(event) || TeamUpdated.is(event)) apply = (tx) => applyTeamState(tx, event.payload, new Date(event.occurredAt));
  else if (ChannelCreated.is(event) || ChannelUpdated.is(event)) apply = (tx) => applyChannelState(tx, event.payload, new Date(event.occurredAt));
  if (!apply) return 'ignored';
  let outcome: ReadModelOutcome = 'stale';
  const run = apply;
  const applied = await applyOnce<Prisma.TransactionClient>((fn) => deps.prisma.$transaction(fn), ORDERS_SCHEMA, READ_MODEL_CONSUMER, event, async (tx) => {
    if (await run(tx)) outcome = 'applied';
  });
  return applied ? outcome : 'duplicate';
}
