import type pg from 'pg';
import type { Logger } from '@pf/platform/logging';
import type { SecretBox } from '../domain/secrets';
import type { EndpointCache } from './endpoint-cache';
import type { CurrentOrders } from '../orders/current-orders';
import type { AddressPolicy, HostResolver } from '../domain/url-policy';
import type { PrismaClient } from '../generated/prisma/client';

/** What the webhooks use cases need. */
export interface WebhooksDeps {
  /** The queue's pg pool (search_path = webhooks). */
  pool: pg.Pool;
  prisma: PrismaClient;
  secrets: SecretBox;
  /** DNS for rule W1 (injected: tests answer from a table). */
  resolver: HostResolver;
  /** Address ranges accepted besides public ones (empty in production). */
  policy: AddressPolicy;
  /** Waits between attempts, seconds. */
  retryDelays: readonly number[];
  stockWindowSeconds: number;
  logger: Logger;
  /** Registrations as last read, for the event path (checked by its statement). */
  endpoints: EndpointCache;
  /** Orders as they are now, for resends (the orders service, else the read model). */
  orders: CurrentOrders;
  /** Called when the event path queued a delivery: wakes this process's delivery worker. */
  onQueued?: () => void;
}
