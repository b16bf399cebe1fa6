import type { Identity } from '@pf/platform/identity';
import { Problem } from '@pf/platform/problems';
import { authoriseBackOffice, maySeeTeam, targetChannel } from '../domain/authorisation';
import { NOTIFICATION_TYPES } from '../domain/notifications';
import { findDeliveryWithAttempts, listDeliveries, type DeliveryStatus, type DeliveryWithAttempts } from '../repositories/deliveries';
import type { WebhooksDeps } from './deps';

export interface DeliveryPage {
  items: DeliveryWithAttempts[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'sending', 'succeeded', 'failed'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function encodeCursor(d: { createdAt: Date; id: string }): string {
  return Buffer.from(`${d.createdAt.toISOString()}|${d.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !UUID.test(id) || Number.isNaN(createdAt.getTime())) throw Problem.validation([{ property: 'after', message: 'Not a cursor of this list.' }]);
  return { createdAt, id };
}

/**
 * Back-office: the channel's deliveries, newest first, each with its attempts (status codes,
 * durations, errors, next attempt). `first` 1-200 (default 50).
 */
export async function deliveryLog(
  deps: WebhooksDeps,
  identity: Identity,
  args: { channelId: string; status?: string | null; notificationType?: string | null; orderUuid?: string | null; first?: number | null; after?: string | null },
): Promise<DeliveryPage> {
  authoriseBackOffice(identity);
  const ref = targetChannel(identity, args.channelId);
  const first = args.first ?? 50;
  const violations = [];
  if (!Number.isInteger(first) || first < 1 || first > 200) violations.push({ property: 'first', message: 'Must be from 1 to 200.' });
  const status = args.status?.toLowerCase() as DeliveryStatus | undefined;
  if (status && !STATUSES.includes(status)) violations.push({ property: 'status', message: `Must be one of ${STATUSES.join(', ')}.` });
  if (args.notificationType && !(NOTIFICATION_TYPES as readonly string[]).includes(args.notificationType)) {
    violations.push({ property: 'notificationType', message: `Must be one of ${NOTIFICATION_TYPES.join(', ')}.` });
  }
  if (args.orderUuid && !UUID.test(args.orderUuid)) violations.push({ property: 'orderUuid', message: 'Must be a uuid.' });
  if (violations.length > 0) throw Problem.validation(violations);
  const rows = await listDeliveries(deps.prisma, {
    channelId: ref.channelId,
    ...(status ? { status } : {}),
    ...(args.notificationType ? { notificationType: args.notificationType } : {}),
    ...(args.orderUuid ? { orderUuid: args.orderUuid.toLowerCase() } : {}),
    first: first + 1,
    ...(args.after ? { after: decodeCursor(args.after) } : {}),
  });
  const items = rows.slice(0, first);
  return { items, nextCursor: rows.length > first ? encodeCursor(items[items.length - 1]!) : null };
}

/** Back-office: one delivery of the caller's team with its attempts, or null. */
export async function deliveryById(deps: WebhooksDeps, identity: Identity, id: string): Promise<DeliveryWithAttempts | null> {
  authoriseBackOffice(identity);
  if (!UUID.test(id)) return null;
  const delivery = await findDeliveryWithAttempts(deps.prisma, id.toLowerCase());
  return delivery && maySeeTeam(identity, delivery.teamCode) ? delivery : null;
}
