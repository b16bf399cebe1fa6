import type { JwtSignOptions } from '@pf/platform/identity';
import type { Logger } from '@pf/platform/logging';
import { parseChannelId } from '../domain/authorisation';
import type { OrderSnapshot } from '../domain/notifications';
import { findOrderView, type OrderViewRow } from '../repositories/read-models';
import type { Queryable } from '../repositories/db';
import { SubgraphClient, SubgraphError } from '../upstream/subgraph-client';

/** An order as a resend describes it, with what rule O1 judges (origin, channel). */
export type CurrentOrder = OrderViewRow;

/** Where a resend learns the order's current state. */
export interface CurrentOrders {
  /** The order as it is now; null when there is no such order. Throws when it cannot tell. */
  find(orderUuid: string): Promise<CurrentOrder | null>;
}

/** The service's own read model of orders, fed by order events: as current as the last event consumed. */
export class ReadModelOrders implements CurrentOrders {
  constructor(private readonly db: Queryable) {}

  find(orderUuid: string): Promise<CurrentOrder | null> {
    return findOrderView(this.db, orderUuid);
  }
}

const ORDER_QUERY = `query CurrentOrder($u: ID!) {
  order(uuid: $u) { uuid orderNumber status fulfillableStatus createdAt updatedAt confirmedAt origin channelId teamCode }
}`;

/** The order as the orders subgraph answers it: the snapshot's members, and what rule O1 judges. */
type OrderFields = Pick<OrderSnapshot, 'orderNumber' | 'status' | 'fulfillableStatus' | 'createdAt' | 'updatedAt' | 'confirmedAt'> & {
  uuid: string;
  origin: string;
  channelId: string;
  teamCode: string;
};

interface OrderAnswer {
  order: OrderFields | null;
}

/**
 * The orders subgraph, asked directly with a service JWT: the order as it is the moment the resend
 * is asked for. The read model lags the orders service by an event's trip through the outbox and
 * Kafka, so an order created a moment ago (or its latest status) may not be in it yet.
 */
export class OrdersSubgraphOrders implements CurrentOrders {
  private readonly client: SubgraphClient;

  constructor(opts: { url: string; jwt: JwtSignOptions; timeoutMs?: number }) {
    this.client = new SubgraphClient({ ...opts, name: 'orders' });
  }

  async find(orderUuid: string): Promise<CurrentOrder | null> {
    let answer: OrderAnswer;
    try {
      answer = await this.client.query<OrderAnswer>(ORDER_QUERY, { u: orderUuid }, `webhooks-resend-${orderUuid}`);
    } catch (err) {
      if (err instanceof SubgraphError && err.codes.includes('not-found')) return null;
      throw err;
    }
    const o = answer.order;
    if (!o) return null;
    return {
      orderUuid: o.uuid.toLowerCase(),
      teamCode: o.teamCode,
      channelId: o.channelId,
      channelCode: parseChannelId(o.channelId)?.channelCode ?? o.channelId,
      origin: o.origin,
      orderNumber: o.orderNumber,
      status: o.status,
      fulfillableStatus: o.fulfillableStatus,
      createdAt: new Date(o.createdAt),
      updatedAt: new Date(o.updatedAt),
      confirmedAt: o.confirmedAt === null ? null : new Date(o.confirmedAt),
    };
  }
}

/**
 * The orders service first; when it cannot answer (down, timed out), the read model, so a resend
 * still works with what the events said (logged: it may describe an earlier state).
 */
export class OrdersWithFallback implements CurrentOrders {
  constructor(
    private readonly primary: CurrentOrders,
    private readonly fallback: CurrentOrders,
    private readonly logger: Logger,
  ) {}

  async find(orderUuid: string): Promise<CurrentOrder | null> {
    try {
      return await this.primary.find(orderUuid);
    } catch (err) {
      this.logger.warn({ err, orderUuid }, 'the orders service could not be asked for the order; the resend uses the order events read so far');
      return this.fallback.find(orderUuid);
    }
  }
}
