import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { SubgraphContext } from '@pf/platform/graphql/subgraph';
import type { DeliveryWithAttempts } from '../repositories/deliveries';
import type { EndpointInfo } from '../repositories/endpoints';
import type { QueuedWebhook, WebhooksUseCases } from '../use-cases';

/** Per-request context of the webhooks subgraph. */
export interface WebhooksContext extends SubgraphContext {
  webhooks: WebhooksUseCases;
  /** Attempts a delivery gets in all (from the retry schedule). */
  maxAttempts: number;
}

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);
const upper = (s: string) => s.toUpperCase();

type Attempt = DeliveryWithAttempts['attempts'][number];

interface LogArgs {
  status?: string | null;
  notificationType?: string | null;
  orderUuid?: string | null;
  first?: number | null;
  after?: string | null;
}

/**
 * Thin resolvers: each passes the caller's identity and its arguments to one use case, which
 * authorises and does the work. Timestamps leave as ISO 8601 strings, enums in upper case.
 */
export const resolvers: GraphQLResolverMap<WebhooksContext> = {
  Query: {
    channelWebhook: (_: unknown, args: { channelId?: string | null }, ctx: WebhooksContext) => ctx.webhooks.channelWebhook(ctx.identity, args.channelId),
    webhookDeliveries: (_: unknown, args: LogArgs & { channelId: string }, ctx: WebhooksContext) => ctx.webhooks.deliveryLog(ctx.identity, args),
    webhookDelivery: (_: unknown, args: { id: string }, ctx: WebhooksContext) => ctx.webhooks.delivery(ctx.identity, args.id),
  },
  Mutation: {
    registerWebhook: (_: unknown, args: { url: string; channelId?: string | null }, ctx: WebhooksContext) => ctx.webhooks.registerWebhook(ctx.identity, args),
    rotateWebhookSecret: (_: unknown, args: { channelId?: string | null }, ctx: WebhooksContext) => ctx.webhooks.rotateWebhookSecret(ctx.identity, args),
    resendWebhook: (_: unknown, args: { orderUuid: string; notificationType: string; channelId?: string | null }, ctx: WebhooksContext) =>
      ctx.webhooks.resendWebhook(ctx.identity, args),
    redeliverWebhook: (_: unknown, args: { deliveryId: string }, ctx: WebhooksContext) => ctx.webhooks.redeliverWebhook(ctx.identity, args.deliveryId),
  },
  Channel: {
    __resolveReference: (ref: { id: string }) => ({ id: ref.id }),
    webhook: (channel: { id: string }, _: unknown, ctx: WebhooksContext) => ctx.webhooks.channelWebhook(ctx.identity, channel.id),
  },
  ChannelWebhook: {
    secretCreatedAt: (e: EndpointInfo) => iso(e.secretCreatedAt),
    registeredAt: (e: EndpointInfo) => isoOrNull(e.registeredAt),
    updatedAt: (e: EndpointInfo) => iso(e.updatedAt),
    deliveries: (e: EndpointInfo, args: LogArgs, ctx: WebhooksContext) => ctx.webhooks.deliveryLog(ctx.identity, { ...args, channelId: e.channelId }),
  },
  WebhookDelivery: {
    origin: (d: DeliveryWithAttempts) => upper(d.origin),
    status: (d: DeliveryWithAttempts) => upper(d.status),
    maxAttempts: (_: DeliveryWithAttempts, __: unknown, ctx: WebhooksContext) => ctx.maxAttempts,
    nextAttemptAt: (d: DeliveryWithAttempts) => isoOrNull(d.nextAttemptAt),
    body: (d: DeliveryWithAttempts) => Buffer.from(d.body).toString('utf8'),
    createdAt: (d: DeliveryWithAttempts) => iso(d.createdAt),
    completedAt: (d: DeliveryWithAttempts) => isoOrNull(d.completedAt),
  },
  WebhookAttempt: {
    number: (a: Attempt) => a.attemptNumber,
    startedAt: (a: Attempt) => iso(a.startedAt),
    outcome: (a: Attempt) => upper(a.outcome),
    nextAttemptAt: (a: Attempt) => isoOrNull(a.nextAttemptAt),
  },
  QueuedWebhook: {
    status: (q: QueuedWebhook) => upper(q.status),
    queuedAt: (q: QueuedWebhook) => iso(q.queuedAt),
  },
};
