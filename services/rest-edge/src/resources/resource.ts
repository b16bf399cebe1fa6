import type { AccessRule, Principal } from '../domain/access';
import type { GraphqlOperation } from '../upstream/graphql';

/** Sends one prebuilt operation upstream as the request's principal (a channel JWT). */
export type UpstreamCall = <V, D>(operation: GraphqlOperation<V, D>, variables: V) => Promise<D>;

/** Sends one prebuilt operation to the gateway as the request's principal. */
export type GatewayCall = UpstreamCall;

/** Settings some endpoints need (from the edge's configuration). */
export interface ResourceSettings {
  /** Products per page read from the stock feed while streaming `GET /stock-levels` (STOCK_LEVELS_PAGE_SIZE). */
  stockLevelsPageSize: number;
  /** How far behind now `GET /orders`'s `next_cursor` stays (ORDERS_CURSOR_SETTLE_SECONDS, in ms). */
  ordersCursorSettleMs: number;
}

/** What a resource handler sees of a request that passed authentication and validation. */
export interface ResourceRequest {
  principal: Principal;
  /** Path parameters of the route (the channel id is `principal.pathChannelId`). */
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The JSON body, already validated against the document (undefined when none was sent). */
  body: unknown;
  gateway: GatewayCall;
  /**
   * The stock subgraph directly when STOCK_URL is set, otherwise the gateway (the stock feed's
   * root field is the same on both).
   */
  stock: UpstreamCall;
  /**
   * The orders subgraph directly when ORDERS_URL is set, otherwise the gateway (the order
   * operations select only fields the orders subgraph owns, so both answer them alike).
   */
  orders: UpstreamCall;
  /**
   * Absolute URL of the path channel as the client reaches it, without a trailing slash
   * (`https://api.example.com/v1/channels/acme-shop`): the start of links in responses.
   */
  channelUrl: string;
  /** The contract version the edge serves (`Service-Api-Version`). */
  apiVersion: string;
  settings: ResourceSettings;
}

/** A JSON body, built whole (every endpoint but the streamed ones). */
export interface JsonResponse {
  status: number;
  body: unknown;
}

/**
 * A JSON document written piece by piece as its chunks come, so a response of any length takes
 * bounded memory. Nothing is sent until the first chunk is there: a failure before it is answered
 * like any other (a problem); a failure after it aborts the connection, so the client sees a
 * truncated response and never a complete-looking document.
 */
export interface StreamedResponse {
  status: number;
  /** Chunks whose concatenation is the whole body. */
  chunks: AsyncIterable<string>;
}

export type ResourceResponse = JsonResponse | StreamedResponse;

export function isStreamed(response: ResourceResponse): response is StreamedResponse {
  return 'chunks' in response;
}

/**
 * One endpoint of the Channel API. Each resource folder holds its route (this), the GraphQL
 * operation it sends (operation.ts) and the mapper from the GraphQL result to the REST body
 * (mapper.ts); its request schema is in the OpenAPI document, under `operationId`.
 */
export interface ResourceRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** As in the OpenAPI document, relative to `/v1/channels/{channelId}`. */
  path: string;
  operationId: string;
  access: AccessRule;
  handle(request: ResourceRequest): Promise<ResourceResponse>;
}
