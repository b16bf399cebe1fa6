/**
 * The order state machine of spec section 3, as one pure module: which trigger may move an order
 * from which status to which, under which condition, what happens to `confirmedAt`, and what the
 * use case must do besides (fulfilments, stock holds, the durable timer). The rows the spec leaves
 * "not shown" are our design; docs/orders.md lists them all.
 *
 * Use cases ask `decide()` and carry out its effects; they never compare statuses themselves.
 */

export const ORDER_STATUSES = [
  'draft',
  'queued',
  'scheduled',
  'processing',
  'holding',
  'back-order',
  'complete',
  'cancelled',
  'returned',
  'invalid',
  'error',
  'failed',
  'partial',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Named by the spec: draft, dispatched, returned, invalid, cancelled, failed, back-order; ours: processing (sent to the supplier). */
export const FULFILMENT_STATUSES = ['draft', 'processing', 'back-order', 'dispatched', 'returned', 'invalid', 'cancelled', 'failed'] as const;
export type FulfilmentStatus = (typeof FULFILMENT_STATUSES)[number];

/** Final order statuses (spec: complete, failed, partial, cancelled; and returned, which follows a finished order's return). */
export const FINISHED_ORDER_STATUSES: readonly OrderStatus[] = ['complete', 'cancelled', 'failed', 'returned', 'partial'];

/** Statuses of an order that is confirmed and still in progress (rule O2's list). */
export const IN_PROGRESS_STATUSES: readonly OrderStatus[] = ['queued', 'scheduled', 'processing', 'holding', 'back-order', 'error'];

/** A fulfilment in one of these has nothing more to happen to it, except dispatched -> returned. */
export const FINISHED_FULFILMENT_STATUSES: readonly FulfilmentStatus[] = ['dispatched', 'returned', 'failed', 'cancelled'];

export const FULFILLABLE_STATUSES = ['fulfillable', 'partially-fulfillable', 'not-fulfillable'] as const;
export type FulfillableStatus = (typeof FULFILLABLE_STATUSES)[number];

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}

export function isFulfilmentStatus(value: string): value is FulfilmentStatus {
  return (FULFILMENT_STATUSES as readonly string[]).includes(value);
}

export function isFinished(status: OrderStatus): boolean {
  return FINISHED_ORDER_STATUSES.includes(status);
}

/** What the state machine needs to know about an order. */
export interface OrderState {
  status: OrderStatus;
  confirmedAt: Date | null;
  fulfilmentStatuses: readonly FulfilmentStatus[];
}

/**
 * Whether the order counts as confirmed. `confirmedAt` decides; orders confirmed before it existed
 * (before 19 October 2026, until backfilled) have null, so a status that only a confirmed order
 * reaches counts too. Never used to answer clients: they get `confirmedAt` itself.
 */
export function isConfirmed(order: Pick<OrderState, 'status' | 'confirmedAt'>): boolean {
  if (order.confirmedAt !== null) return true;
  return !['draft', 'holding', 'cancelled'].includes(order.status);
}

/** Something reached a supplier: a fulfilment left draft. */
export function somethingSent(order: Pick<OrderState, 'fulfilmentStatuses'>): boolean {
  return order.fulfilmentStatuses.some((s) => s !== 'draft');
}

/** Something shipped: a fulfilment is dispatched (or was, and came back). */
export function somethingShipped(order: Pick<OrderState, 'fulfilmentStatuses'>): boolean {
  return order.fulfilmentStatuses.some((s) => s === 'dispatched' || s === 'returned');
}

export type OrderTrigger =
  /** `PUT .../confirm` */
  | 'confirm'
  /** `POST /orders` with an existing order number (rule O2) */
  | 'replace'
  /** `PUT .../lines` (rule O5) */
  | 'amend'
  /** `PUT .../cancel`, `DELETE /orders/{uuid}` */
  | 'cancel'
  /** Merchant: take out of the queue / save as draft */
  | 'save-as-draft'
  /** Merchant or supplier: the shipping address was rejected */
  | 'reject-shipping-address'
  /** Merchant: a confirmed order could not be sent */
  | 'not-sent'
  /** Merchant: queue (confirming if needed) */
  | 'queue'
  /** Merchant: schedule (confirming if needed) */
  | 'schedule'
  /** Merchant: process now (confirming if needed) */
  | 'process-now'
  /** Timer: a queued order's countdown ended */
  | 'countdown-ended'
  /** Timer: a scheduled order's time came */
  | 'schedule-due'
  /** Timer: the move to processing failed for good */
  | 'processing-failed'
  /** Stock repair: the stock a change that did not finish gave up was sold meanwhile */
  | 'stock-lost';

/** What happens to the fulfilments. */
export type FulfilmentEffect =
  /** nothing */
  | 'keep'
  /** build them (holding stock) unless the order has them already */
  | 'ensure'
  /** rebuild them from the new lines with new uuids (amendment); none for an order without */
  | 'rebuild'
  /** ensure, then send every draft fulfilment to its supplier (status processing, holds consumed) */
  | 'send'
  /** every unfinished fulfilment becomes cancelled */
  | 'cancel-open'
  /** drop them all: the order is back before confirmation */
  | 'discard';

/** What happens to the order's stock holds (building fulfilments holds stock by itself). */
export type HoldEffect =
  | 'keep'
  /** give every placed hold back */
  | 'release'
  /** a replacement: hold the new lines when the request says `reserve: true`, release otherwise */
  | 'as-requested'
  /** an amendment: hold the new lines again when the order holds stock (replacing the holds) */
  | 'rehold';

/** What happens to the order's durable timer. */
export type TimerEffect =
  | 'keep'
  /** a fresh countdown: fulfillableFrom = now + countdown */
  | 'countdown'
  /** fulfillableFrom = scheduledAt */
  | 'schedule'
  /** none any more */
  | 'clear';

export type ConfirmedAtRule = 'set' | 'set-if-null' | 'keep' | 'clear';

export interface TransitionRow {
  /** Stable number, used by the tests and docs/orders.md. */
  row: number;
  trigger: OrderTrigger;
  from: readonly OrderStatus[];
  /** Extra condition on the order; null: none. */
  guard: ((order: OrderState, ctx: TransitionContext) => string | null) | null;
  /** The status after; `same` keeps it; a function picks by context (queued or scheduled). */
  to: OrderStatus | 'same' | ((ctx: TransitionContext) => OrderStatus);
  confirmedAt: ConfirmedAtRule;
  fulfilments: FulfilmentEffect;
  holds: HoldEffect;
  timer: TimerEffect | ((to: OrderStatus) => TimerEffect);
}

export interface TransitionContext {
  now: Date;
  /** The order's scheduledAt (confirm, queue) or the one asked for (schedule). */
  scheduledAt?: Date | null;
}

const NOT_FINISHED: readonly OrderStatus[] = ORDER_STATUSES.filter((s) => !FINISHED_ORDER_STATUSES.includes(s));

const nothingSent = (o: OrderState) => (somethingSent(o) ? 'A fulfilment of the order has already reached a supplier.' : null);
const nothingShipped = (o: OrderState) => (somethingShipped(o) ? 'A fulfilment of the order has already been dispatched.' : null);
const confirmedOnly = (o: OrderState) => (isConfirmed(o) ? null : 'The order has not been confirmed.');
const unconfirmedOnly = (o: OrderState) => (o.confirmedAt === null ? null : 'The order was confirmed.');
const scheduledInFuture = (_: OrderState, ctx: TransitionContext) =>
  ctx.scheduledAt && ctx.scheduledAt.getTime() > ctx.now.getTime() ? null : 'The scheduled time must be in the future.';

/** Confirmation queues the order, or schedules it when its scheduledAt is still ahead. */
const queuedOrScheduled = (ctx: TransitionContext): OrderStatus =>
  ctx.scheduledAt && ctx.scheduledAt.getTime() > ctx.now.getTime() ? 'scheduled' : 'queued';
const timerFor = (to: OrderStatus): TimerEffect => (to === 'scheduled' ? 'schedule' : 'countdown');

/**
 * Every transition. Rows 1-9 are the spec's table (section 3) and rule O2; the others are ours
 * (merchant actions and timers). Fulfilment-driven changes are `deriveFromFulfilments`.
 */
export const TRANSITIONS: readonly TransitionRow[] = [
  // Spec: draft, or held before confirmation + POST /orders with the same orderNumber -> same order, replaced.
  { row: 1, trigger: 'replace', from: ['draft'], guard: null, to: 'draft', confirmedAt: 'keep', fulfilments: 'keep', holds: 'as-requested', timer: 'keep' },
  { row: 2, trigger: 'replace', from: ['holding'], guard: unconfirmedOnly, to: 'draft', confirmedAt: 'keep', fulfilments: 'discard', holds: 'as-requested', timer: 'clear' },
  // Spec: draft + confirm -> confirmed (queued counting down, or scheduled); confirmedAt set; fulfilments built, stock held.
  { row: 3, trigger: 'confirm', from: ['draft'], guard: null, to: queuedOrScheduled, confirmedAt: 'set', fulfilments: 'ensure', holds: 'keep', timer: timerFor },
  // Spec: draft, queued or scheduled with every fulfilment still a draft + PUT lines -> stays; fulfilments rebuilt; a queued order gets a fresh countdown.
  {
    row: 4,
    trigger: 'amend',
    from: ['draft', 'queued', 'scheduled'],
    guard: nothingSent,
    to: 'same',
    confirmedAt: 'keep',
    fulfilments: 'rebuild',
    holds: 'rehold',
    timer: (to) => (to === 'queued' ? 'countdown' : 'keep'),
  },
  // Spec: any cancellable, not yet dispatched + cancel -> cancelled; confirmedAt stays.
  { row: 5, trigger: 'cancel', from: NOT_FINISHED, guard: nothingShipped, to: 'cancelled', confirmedAt: 'keep', fulfilments: 'cancel-open', holds: 'release', timer: 'clear' },
  // Spec: confirmed + taken out of the queue / saved as draft -> draft, confirmedAt cleared. Ours: only while nothing reached a supplier.
  {
    row: 6,
    trigger: 'save-as-draft',
    from: ['queued', 'scheduled', 'holding', 'error'],
    guard: nothingSent,
    to: 'draft',
    confirmedAt: 'clear',
    fulfilments: 'discard',
    holds: 'release',
    timer: 'clear',
  },
  // Spec: (any) + shipping address rejected -> holding, confirmedAt null. Ours: not once finished or shipped.
  {
    row: 7,
    trigger: 'reject-shipping-address',
    from: NOT_FINISHED,
    guard: nothingShipped,
    to: 'holding',
    confirmedAt: 'clear',
    fulfilments: 'discard',
    holds: 'release',
    timer: 'clear',
  },
  // Spec: confirmed + could not be sent -> holding, confirmedAt kept. Ours: not once a parcel was
  // dispatched (it was sent; holding would then refuse every merchant action until the rest finish).
  {
    row: 8,
    trigger: 'not-sent',
    from: ['queued', 'scheduled', 'processing', 'back-order', 'error'],
    guard: (o) => confirmedOnly(o) ?? nothingShipped(o),
    to: 'holding',
    confirmedAt: 'keep',
    fulfilments: 'keep',
    holds: 'keep',
    timer: 'clear',
  },
  // Ours: merchant actions that confirm when needed (section 3: queueing, scheduling or processing sets confirmedAt).
  // Queueing a queued order restarts its countdown (the merchant wants more time before it is sent).
  { row: 9, trigger: 'queue', from: ['draft', 'queued', 'scheduled', 'holding', 'error'], guard: nothingSent, to: 'queued', confirmedAt: 'set-if-null', fulfilments: 'ensure', holds: 'keep', timer: 'countdown' },
  {
    row: 10,
    trigger: 'schedule',
    from: ['draft', 'queued', 'scheduled', 'holding', 'error'],
    guard: (o, ctx) => nothingSent(o) ?? scheduledInFuture(o, ctx),
    to: 'scheduled',
    confirmedAt: 'set-if-null',
    fulfilments: 'ensure',
    holds: 'keep',
    timer: 'schedule',
  },
  { row: 11, trigger: 'process-now', from: ['draft', 'queued', 'scheduled', 'holding', 'error'], guard: nothingSent, to: 'processing', confirmedAt: 'set-if-null', fulfilments: 'send', holds: 'keep', timer: 'clear' },
  // Ours: the durable timers.
  { row: 12, trigger: 'countdown-ended', from: ['queued'], guard: null, to: 'processing', confirmedAt: 'keep', fulfilments: 'send', holds: 'keep', timer: 'clear' },
  { row: 13, trigger: 'schedule-due', from: ['scheduled'], guard: null, to: 'processing', confirmedAt: 'keep', fulfilments: 'send', holds: 'keep', timer: 'clear' },
  // Sending failed for good: section 3's "a confirmed order could not be sent", as row 8.
  { row: 14, trigger: 'processing-failed', from: ['queued', 'scheduled'], guard: null, to: 'holding', confirmedAt: 'keep', fulfilments: 'keep', holds: 'keep', timer: 'clear' },
  // Ours: the stock repair cannot give the order back what a change that did not finish released
  // (sold meanwhile). A confirmed order cannot be sent as it is: section 3's "could not be sent"
  // (holding, confirmedAt kept), without fulfilments, so that queueing it again holds stock anew;
  // a draft loses its reservation.
  { row: 15, trigger: 'stock-lost', from: ['queued', 'scheduled', 'holding', 'error'], guard: nothingSent, to: 'holding', confirmedAt: 'keep', fulfilments: 'discard', holds: 'release', timer: 'clear' },
  { row: 16, trigger: 'stock-lost', from: ['draft'], guard: null, to: 'draft', confirmedAt: 'keep', fulfilments: 'keep', holds: 'release', timer: 'keep' },
];

export type Decision =
  | {
      kind: 'move';
      row: number;
      to: OrderStatus;
      confirmedAt: Date | null;
      fulfilments: FulfilmentEffect;
      holds: HoldEffect;
      timer: TimerEffect;
    }
  /** Confirming an order that is already confirmed: answered with the order as it is. */
  | { kind: 'unchanged' }
  /** No row allows it (the use case answers `order-state-forbids`, or its own refusal). */
  | { kind: 'refused'; detail: string };

/**
 * The transition a trigger causes on an order, or why it may not happen. Unknown combinations are
 * refused.
 */
export function decide(order: OrderState, trigger: OrderTrigger, ctx: TransitionContext): Decision {
  // Confirming a confirmed order answers it as it is (section 3), whatever became of it since:
  // confirmation is confirmedAt, never the status, and a cancelled order keeps it.
  if (trigger === 'confirm' && isConfirmed(order)) return { kind: 'unchanged' };
  const candidates = TRANSITIONS.filter((t) => t.trigger === trigger && t.from.includes(order.status));
  let detail = `An order in status ${order.status} cannot be changed that way (${trigger}).`;
  for (const t of candidates) {
    const why = t.guard?.(order, ctx) ?? null;
    if (why !== null) {
      detail = why;
      continue;
    }
    const to = t.to === 'same' ? order.status : typeof t.to === 'function' ? t.to(ctx) : t.to;
    return {
      kind: 'move',
      row: t.row,
      to,
      confirmedAt: confirmedAtAfter(t.confirmedAt, order.confirmedAt, ctx.now),
      fulfilments: t.fulfilments,
      holds: t.holds,
      timer: typeof t.timer === 'function' ? t.timer(to) : t.timer,
    };
  }
  return { kind: 'refused', detail };
}

function confirmedAtAfter(rule: ConfirmedAtRule, current: Date | null, now: Date): Date | null {
  switch (rule) {
    case 'set':
      return now;
    case 'set-if-null':
      return current ?? now;
    case 'keep':
      return current;
    case 'clear':
      return null;
  }
}

// --- fulfilments -----------------------------------------------------------------------------

/**
 * Fulfilment transitions (ours; the spec names the statuses only): a draft is sent (processing)
 * or cancelled with its order; the supplier reports progress from processing, back-order or
 * invalid; a dispatched one may come back (returned). failed, cancelled and returned are final.
 */
export const FULFILMENT_TRANSITIONS: Readonly<Record<FulfilmentStatus, readonly FulfilmentStatus[]>> = {
  draft: ['processing', 'cancelled'],
  processing: ['dispatched', 'back-order', 'invalid', 'failed', 'cancelled'],
  'back-order': ['processing', 'dispatched', 'invalid', 'failed', 'cancelled'],
  invalid: ['processing', 'failed', 'cancelled'],
  dispatched: ['returned'],
  returned: [],
  failed: [],
  cancelled: [],
};

/** Supplier progress the back-office may record (draft -> processing is the order's own move). */
export const SUPPLIER_PROGRESS: readonly FulfilmentStatus[] = ['processing', 'back-order', 'dispatched', 'returned', 'invalid', 'failed', 'cancelled'];

export function mayMoveFulfilment(from: FulfilmentStatus, to: FulfilmentStatus): boolean {
  return FULFILMENT_TRANSITIONS[from].includes(to);
}

/**
 * The final order status fulfilments add up to (spec section 3), or null while any is unfinished:
 * `complete` every one dispatched; `partial` at least one dispatched and at least one not;
 * `failed` every one failed, cancelled or returned (nothing shipped).
 */
export function finalStatusOf(statuses: readonly FulfilmentStatus[]): 'complete' | 'partial' | 'failed' | null {
  if (statuses.length === 0) return null;
  if (!statuses.every((s) => FINISHED_FULFILMENT_STATUSES.includes(s))) return null;
  const dispatched = statuses.filter((s) => s === 'dispatched').length;
  if (dispatched === statuses.length) return 'complete';
  if (dispatched > 0) return 'partial';
  return 'failed';
}

/** Order statuses whose value follows the fulfilments' progress. */
const FOLLOWS_FULFILMENTS: readonly OrderStatus[] = ['processing', 'back-order', 'invalid'];
/** Order statuses a supplier's progress may finish, but not otherwise change. */
const FINISHABLE_ONLY: readonly OrderStatus[] = ['holding', 'error'];

/**
 * The order's status after a fulfilment changed (ours):
 * - processing, back-order, invalid: the final status once every fulfilment is finished
 *   (finalStatusOf: section 3's complete, partial, failed); otherwise invalid when one is invalid,
 *   back-order when one is on back order, processing else;
 * - holding, error: only a final status replaces them;
 * - complete, partial (and a `returned` order of before): the final status again when a
 *   dispatched parcel comes back (a `returned` fulfilment counts as not shipped: section 3's
 *   `failed` lists it), so complete becomes partial, partial may become failed;
 * - anything else (draft, queued, scheduled, cancelled, failed): unchanged.
 * No order becomes `returned` from its fulfilments: section 3 derives only complete, partial and
 * failed from them.
 */
export function deriveFromFulfilments(current: OrderStatus, statuses: readonly FulfilmentStatus[]): OrderStatus {
  const final = finalStatusOf(statuses);
  if (current === 'complete' || current === 'partial' || current === 'returned') return final ?? current;
  if (FINISHABLE_ONLY.includes(current)) return final ?? current;
  if (!FOLLOWS_FULFILMENTS.includes(current)) return current;
  if (final) return final;
  if (statuses.includes('invalid')) return 'invalid';
  if (statuses.includes('back-order')) return 'back-order';
  return 'processing';
}

/**
 * Whether supplier progress may be recorded on the order's fulfilments at all. A `returned` order
 * still may: its other dispatched fulfilments can come back too (each a fulfilment webhook).
 */
export function acceptsSupplierProgress(status: OrderStatus): boolean {
  return [...FOLLOWS_FULFILMENTS, ...FINISHABLE_ONLY, 'complete', 'partial', 'returned'].includes(status);
}
