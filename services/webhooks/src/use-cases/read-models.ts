import { ChannelCreated, ChannelUpdated, TeamCreated, TeamUpdated } from '@pf/platform/events/accounts';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { StockLevelChanged } from '@pf/platform/events/stock';
import { applyOnce } from '@pf/platform/outbox/inbox';
import { inTransaction, WEBHOOKS_SCHEMA, type Tx } from '../repositories/db';
import { upsertChannel, upsertTeam } from '../repositories/read-models';
import { addStockChange } from '../repositories/stock-windows';
import type { WebhooksDeps } from './deps';

/** Inbox consumer names: each records which events it has applied. */
export const CONSUMERS = {
  accounts: 'webhooks.accounts',
  orders: 'webhooks.orders',
  stock: 'webhooks.stock',
} as const;

export type Applied = 'applied' | 'duplicate' | 'ignored';

/** Runs `apply` once per event and consumer, in one transaction with the inbox row. */
export async function once(deps: WebhooksDeps, consumer: string, event: EventEnvelope, apply: (tx: Tx) => Promise<void>): Promise<Applied> {
  const applied = await applyOnce((fn) => inTransaction(deps.pool, fn), WEBHOOKS_SCHEMA, consumer, event, apply);
  return applied ? 'applied' : 'duplicate';
}

/**
 * Teams and channels from accounts. Each event carries the full state after the change, and one
 * aggregate's events arrive in order, so the latest event is the state. A deactivated channel gets
 * no new webhooks from then on; already queued ones keep their retries.
 */
export async function applyAccountsEvent(deps: WebhooksDeps, event: EventEnvelope): Promise<Applied> {
  if (TeamCreated.is(event) || TeamUpdated.is(event)) {
    const team = event.payload;
    return once(deps, CONSUMERS.accounts, event, (tx) => upsertTeam(tx, { teamCode: team.teamCode, active: team.active }));
  }
  if (ChannelCreated.is(event) || ChannelUpdated.is(event)) {
    const c = event.payload;
    return once(deps, CONSUMERS.accounts, event, (tx) =>
      upsertChannel(tx, { channelId: c.channelId, teamCode: c.teamCode, channelCode: c.channelCode, active: c.active, standard: c.standard }),
    );
  }
  return 'ignored';
}

/**
 * Products' stock figures changed: each joins its team's open stock window (the first change
 * opens one). A figure is read again when the window closes, so only which products changed is
 * kept. A run of events is applied in one transaction (a warehouse disabled changes thousands).
 */
export async function applyStockEvents(deps: WebhooksDeps, events: readonly EventEnvelope[]): Promise<Applied[]> {
  return inTransaction(deps.pool, async (tx) => {
    const outcomes: Applied[] = [];
    for (const event of events) {
      if (!StockLevelChanged.is(event)) {
        outcomes.push('ignored');
        continue;
      }
      const p = event.payload;
      const applied = await applyOnce<Tx>((fn) => fn(tx), WEBHOOKS_SCHEMA, CONSUMERS.stock, event, (t) =>
        addStockChange(t, {
          teamCode: p.teamCode,
          productUuid: p.productUuid.toLowerCase(),
          sku: p.sku,
          changedAt: new Date(p.changedAt),
          windowSeconds: deps.stockWindowSeconds,
        }),
      );
      outcomes.push(applied ? 'applied' : 'duplicate');
    }
    return outcomes;
  });
}
