import type { AccessRule, Principal } from '../domain/access';
import type { GraphqlOperation } from '../upstream/graphql';

/** Sends one prebuilt operation to the gateway as the request's principal. */
export type GatewayCall = <V, D>(operation: GraphqlOperation<V, D>, variables: V) => Promise<D>;

/** What a resource handler sees of a request that passed authentication and validation. */
export interface ResourceRequest {
  principal: Principal;
  /** Path parameters of the route (the channel id is `principal.pathChannelId`). */
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The JSON body, already validated against the document (undefined when none was sent). */
  body: unknown;
  gateway: GatewayCall;
  /** The contract version the edge serves (`Service-Api-Version`). */
  apiVersion: string;
}

export interface ResourceResponse {
  status: number;
  body: unknown;
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
