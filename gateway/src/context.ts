import type { Identity } from '@pf/platform/identity';

/** What the gateway knows about one request once its identity JWT is verified. */
export interface GatewayContext {
  identity: Identity;
  /** The caller's `Authorization` header, forwarded unchanged to every subgraph. */
  authorization: string;
  /** The caller's `X-Request-Id` (or one the gateway made up), forwarded to every subgraph. */
  requestId: string;
}
