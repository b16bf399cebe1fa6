import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import type { Order } from './model';

/**
 * Which orders a caller sees (rule O1): a channel identity only the orders created through the
 * API on its own channel; a back-office identity every order of its team, on every channel; a
 * service identity every order.
 */
export type OrderScope =
  | { kind: 'channel'; teamCode: string; channelId: string }
  | { kind: 'team'; teamCode: string }
  | { kind: 'all' };

export function scopeOf(identity: Identity): OrderScope {
  switch (identity.kind) {
    case 'channel':
      return { kind: 'channel', teamCode: identity.teamCode, channelId: identity.channelId };
    case 'backoffice':
      return { kind: 'team', teamCode: identity.teamCode };
    case 'service':
      return { kind: 'all' };
  }
}

export function isVisible(scope: OrderScope, order: Pick<Order, 'teamCode' | 'channelId' | 'origin'>): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'team':
      return order.teamCode === scope.teamCode;
    case 'channel':
      return order.origin === 'api' && order.teamCode === scope.teamCode && order.channelId === scope.channelId;
  }
}

/** The one not-found answer for an order that does not exist and for one the caller may not see. */
export const ORDER_NOT_FOUND_DETAIL = 'This order could not be found.';

export function orderNotFound(): Problem {
  return Problem.notFound(ORDER_NOT_FOUND_DETAIL);
}

/** Operations of the merchant application: back-office (and operator service) identities only. */
export function requireMerchant(identity: Identity): void {
  if (identity.kind === 'channel') {
    throw new Problem('forbidden', { detail: 'An integration (channel identity) cannot use the merchant application\'s order actions.' });
  }
}

/** `POST /orders`: integrations only (origin `api` on the identity's channel). */
export function requireChannel(identity: Identity): { teamCode: string; channelId: string } {
  if (identity.kind !== 'channel') {
    throw new Problem('forbidden', { detail: 'Orders are created through the API by a channel identity; the merchant application uses enterOrder or importOrders.' });
  }
  return { teamCode: identity.teamCode, channelId: identity.channelId };
}
