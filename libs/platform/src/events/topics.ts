/**
 * Logical topic names, one per aggregate type. Keys are aggregate ids, so all events of one
 * team, channel, product or order stay ordered. Deployments may add a prefix (KAFKA_TOPIC_PREFIX).
 */
export const TOPICS = {
  teams: 'accounts.teams',
  channels: 'accounts.channels',
  apiTokens: 'accounts.api-tokens',
  products: 'catalog.products',
  shippingMethods: 'catalog.shipping-methods',
  stockLevels: 'stock.stock-levels',
  orders: 'orders.orders',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

export const ALL_TOPICS: readonly TopicName[] = Object.values(TOPICS);
