import { randomBytes } from 'node:crypto';
import { noRead, read } from '@pf/platform/db/transaction';
import { actorOf, teamActiveClaim, type Identity } from '@pf/platform/identity';
import { Problem, type Violation } from '@pf/platform/problems';
import type { Order, OrderLine, OrderOrigin } from '../domain/model';
import { validateOrderInput, type OrderInput, type ShippingDetails, type ValidOrderInput } from '../domain/order-input';
import { decide } from '../domain/order-state-machine';
import { replayDecision } from '../domain/replay';
import { matchSkus } from '../domain/sku-matching';
import { requireChannel, requireMerchant } from '../domain/visibility';
import { insertOrder, lockApiOrderRead, lockMerchantOrderNumbers, lockPrintTrailNumbersRead, printTrailNumberTaken, replaceLines } from '../repositories/order-repository';
import type { Sql } from '../repositories/order-repository';
import { findChannel, liveProductsBySku, liveProductsRead, standardChannelOf, teamActive, teamActiveRead } from '../repositories/read-model-repository';
import { inTransaction, newUuidOf, nowOf, uniqueViolation, type OrdersDeps } from './deps';
import { orderEvents } from './events';
import { followStock } from './stock-fulfillability';
import { applyMove, changeContext, holdLines, releaseHolds, stockShortProblem, undoHoldOnRollback, type ChangeContext } from './transitions';

/** Imported in one call at most (all or none). */
export const IMPORT_LIMIT = 100;

export function teamInactive(teamCode: string): Problem {
  return new Problem('team-inactive', { detail: `Team ${teamCode} is inactive: orders cannot be created, amended or confirmed.` });
}

/**
 * 403 when the team is known to be inactive: by the edge's credentials check when the caller is a
 * channel (its identity says so), else by the read model, where a team whose events have not
 * arrived yet counts as active. Inside a change, pass the change's transaction: a second pool
 * connection taken while the order row is locked lets waiting changes exhaust the pool.
 */
export async function requireActiveTeam(db: Sql, teamCode: string, identity?: Identity): Promise<void> {
  const active = (identity ? teamActiveClaim(identity) : null) ?? (await teamActive(db, teamCode));
  if (active === false) throw teamInactive(teamCode);
}

/** The unique constraint of a team's printTrailOrderNumbers. */
const PRINT_TRAIL_KEY = 'orders_team_code_print_trail_order_number_key';

function printTrailConflict(value: string, where = 'printTrailOrderNumber'): Problem {
  return new Problem('conflict', { detail: `The ${where} "${value}" is already used by another order of the team.` });
}

/** `PT-` and 12 characters from an alphabet without look-alikes. */
export function generatePrintTrailOrderNumber(): string {
  const alphabet = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  const bytes = randomBytes(12);
  let out = 'PT-';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** The lines an order keeps after rule O3 (unmatched SKUs refused with strictSkus, else dropped). */
async function matchedLines(deps: OrdersDeps, teamCode: string, input: ValidOrderInput, strict: boolean, prefix = ''): Promise<OrderLine[]> {
  const products = await liveProductsBySku(
    deps.pool,
    teamCode,
    input.lines.map((l) => l.sku),
  );
  return linesOf(products, input, strict, prefix);
}

function linesOf(products: ReadonlyMap<string, string>, input: ValidOrderInput, strict: boolean, prefix = ''): OrderLine[] {
  const matched = matchSkus(input.lines, products, strict, prefix);
  if (!matched.ok) throw Problem.validation(matched.violations, 'Some order lines name SKUs the team has no product for.');
  return matched.lines;
}

function validated(input: OrderInput, prefix = ''): ValidOrderInput {
  const v = validateOrderInput(input, prefix);
  if (!v.ok) throw Problem.validation(v.violations);
  return v.value;
}

/**
 * `POST /orders` (rule O2): a new draft, or the draft (or order held before confirmation) with
 * the same order number on the channel replaced by what was sent; a confirmed or finished one
 * refused with its uuid and status, unchanged. Concurrent identical requests are serialised per
 * (channel, order number): exactly one order results.
 */
export async function createOrder(deps: OrdersDeps, identity: Identity, input: OrderInput): Promise<Order> {
  const { teamCode, channelId } = requireChannel(identity);
  const wanted = validated(input);
  return inTransaction(deps, async (tx, unit) => {
    const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: 'create' });
    // One round trip: the team (unless the edge's credentials check said, see teamActiveClaim),
    // the SKUs' products with their stock figures, and the order number locked with its order, if any.
    const edgeFound = teamActiveClaim(identity);
    const [active, products, existing] = await tx.reads([
      edgeFound === null ? teamActiveRead(teamCode) : noRead(edgeFound),
      liveProductsRead(
        teamCode,
        wanted.lines.map((l) => l.sku),
      ),
      lockApiOrderRead(channelId, wanted.orderNumber),
      lockPrintTrailNumbersRead(teamCode, [wanted.printTrailOrderNumber]),
    ]);
    // A replay of a confirmed or finished order is answered first (rule O2), whatever the team's
    // state or the SKUs: it neither creates nor amends an order, and the order stays unchanged.
    if (existing) refuseReplayOf(existing, wanted.orderNumber);
    if (active === false) throw teamInactive(teamCode);
    const lines = linesOf(products.uuidBySku, wanted, wanted.strictSkus);
    if (!existing) return writeNewOrder(ctx, { teamCode, channelId, origin: 'api', wanted, lines, figures: products.figureByProduct });
    return replaceOrder({ ...ctx, cause: { ...ctx.cause, trigger: 'replace' } }, existing, wanted, lines);
  }).catch((err: unknown) => {
    // Every client's number is locked before it is checked (lockPrintTrailNumbersRead), so this is
    // only a number equal to one generated meanwhile (those are not locked): the same conflict.
    if (uniqueViolation(err) === PRINT_TRAIL_KEY && wanted.printTrailOrderNumber) throw printTrailConflict(wanted.printTrailOrderNumber);
    throw err;
  });
}

/** Throws the replay 409 of rule O2 unless `existing` may be replaced by what was sent. */
function refuseReplayOf(existing: { uuid: string; status: string; confirmedAt: Date | null; version: number }, orderNumber: string): void {
  const decision = replayDecision(existing);
  if (decision === 'replace') return;
  const detail =
    decision === 'order-already-confirmed'
      ? `Order ${orderNumber} is already confirmed (status ${existing.status}); it was left unchanged.`
      : `Order ${orderNumber} can no longer be updated (status ${existing.status}); it was left unchanged.`;
  // orderVersion: the order as decided on, so that a caller reading it again can tell whether it changed since.
  throw new Problem(decision, { detail, extensions: { orderUuid: existing.uuid, orderStatus: existing.status, orderVersion: existing.version } });
}

/** Back-office: an order entered in the merchant application, on the team's Standard channel. */
export async function enterOrder(deps: OrdersDeps, identity: Identity, input: OrderInput): Promise<Order> {
  requireMerchant(identity);
  if (identity.kind !== 'backoffice') throw new Problem('forbidden', { detail: 'Orders are entered by a back-office user of the team.' });
  const teamCode = identity.teamCode;
  // Named as the mutation's argument (`input.shippingDetails.city`), as every back-office refusal
  // is; createOrder's names are the REST fields the edge passes on (`shippingDetails.city`).
  const wanted = validated({ ...input, strictSkus: true }, 'input.');
  // As scheduleOrder: a merchant's schedule is a time ahead (a shop's past one is dropped at confirm).
  if (wanted.scheduledAt && wanted.scheduledAt.getTime() <= nowOf(deps).getTime()) {
    throw Problem.validation([{ property: 'input.scheduledAt', message: 'Must be in the future.' }]);
  }
  await requireActiveTeam(deps.pool, teamCode);
  const lines = await matchedLines(deps, teamCode, wanted, true, 'input.');
  const channelId = (await standardChannelOf(deps.pool, teamCode)) ?? `${teamCode}-standard`;
  return inTransaction(deps, async (tx, unit) => {
    await refuseTakenNumbers(tx, channelId, [{ orderNumber: wanted.orderNumber, property: 'input.orderNumber' }]);
    await read(tx, lockPrintTrailNumbersRead(teamCode, [wanted.printTrailOrderNumber]));
    return writeNewOrder(changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: 'create' }), { teamCode, channelId, origin: 'merchant-app', wanted, lines });
  });
}

/**
 * A number names one entered or imported order per channel (an import sent again after a lost
 * answer must not make every order twice): a `conflict` naming each number taken and its order.
 * Locks the numbers for the rest of the transaction (lockMerchantOrderNumbers).
 */
async function refuseTakenNumbers(tx: Sql, channelId: string, wanted: readonly { orderNumber: string; property: string }[]): Promise<void> {
  const taken = await lockMerchantOrderNumbers(
    tx,
    channelId,
    wanted.map((w) => w.orderNumber),
  );
  const clashes = wanted.filter((w) => taken.has(w.orderNumber)).map((w) => ({ property: w.property, orderNumber: w.orderNumber, orderUuid: taken.get(w.orderNumber)! }));
  if (clashes.length === 0) return;
  const detail = `The channel ${channelId} already has an order numbered ${clashes.map((c) => `"${c.orderNumber}" (${c.property})`).join(', ')}; nothing was written.`;
  throw new Problem('conflict', { detail, extensions: { orderNumbersTaken: clashes } });
}

/** Back-office: orders imported onto a channel of the team (origin `import`), all or none. */
export async function importOrders(deps: OrdersDeps, identity: Identity, channelId: string, orders: readonly OrderInput[]): Promise<Order[]> {
  requireMerchant(identity);
  if (identity.kind !== 'backoffice') throw new Problem('forbidden', { detail: 'Orders are imported by a back-office user of the team.' });
  const teamCode = identity.teamCode;
  const violations: Violation[] = [];
  const channel = await findChannel(deps.pool, channelId);
  if (!channel || channel.teamCode !== teamCode) violations.push({ property: 'channelId', message: `The team has no channel ${channelId}.` });
  if (orders.length === 0 || orders.length > IMPORT_LIMIT) violations.push({ property: 'orders', message: `From 1 to ${IMPORT_LIMIT} orders per import.` });
  const wanted: ValidOrderInput[] = [];
  orders.forEach((o, i) => {
    const v = validateOrderInput({ ...o, reserve: false }, `orders[${i}].`);
    if (v.ok) wanted.push(v.value);
    else violations.push(...v.violations);
  });
  violations.push(...givenTwice(orders, 'orderNumber'), ...givenTwice(orders, 'printTrailOrderNumber'));
  if (violations.length > 0) throw Problem.validation(violations);
  await requireActiveTeam(deps.pool, teamCode);
  const lines: OrderLine[][] = [];
  for (const [i, w] of wanted.entries()) lines.push(await matchedLines(deps, teamCode, w, w.strictSkus, `orders[${i}].`));
  return inTransaction(deps, async (tx, unit) => {
    await refuseTakenNumbers(
      tx,
      channelId,
      wanted.map((w, i) => ({ orderNumber: w.orderNumber, property: `orders[${i}].orderNumber` })),
    );
    await read(tx, lockPrintTrailNumbersRead(teamCode, wanted.map((w) => w.printTrailOrderNumber)));
    const ctx = changeContext(deps, tx, unit, { actor: actorOf(identity), trigger: 'import' });
    const out: Order[] = [];
    for (const [i, w] of wanted.entries()) {
      out.push(await writeNewOrder(ctx, { teamCode, channelId, origin: 'import', wanted: w, lines: lines[i]!, where: `orders[${i}].printTrailOrderNumber` }));
    }
    return out;
  });
}

/** A violation for each order of a batch (as sent, so that `orders[i]` is the i-th sent) whose `key` an earlier order of the batch has too. */
function givenTwice(orders: readonly OrderInput[], key: 'orderNumber' | 'printTrailOrderNumber'): Violation[] {
  const first = new Map<string, number>();
  const violations: Violation[] = [];
  orders.forEach((o, i) => {
    const value = o[key];
    if (!value) return;
    const earlier = first.get(value);
    if (earlier !== undefined) violations.push({ property: `orders[${i}].${key}`, message: `Also given to orders[${earlier}].` });
    else first.set(value, i);
  });
  return violations;
}

interface NewOrderSpec {
  teamCode: string;
  channelId: string;
  origin: OrderOrigin;
  wanted: ValidOrderInput;
  lines: OrderLine[];
  /** How a taken printTrailOrderNumber is named in the conflict. */
  where?: string;
  /** The known stock figures of the lines' products, when read already (see followStock). */
  figures?: ReadonlyMap<string, number>;
}

/**
 * A new draft: generated printTrailOrderNumber unless given, stock held when asked, fulfillable
 * status from the stock read model, order-created.
 */
async function writeNewOrder(ctx: ChangeContext, spec: NewOrderSpec): Promise<Order> {
  const { deps, tx } = ctx;
  const now = ctx.now;
  // A given printTrailOrderNumber is checked by the unique constraint on insert (one round trip less).
  const printTrail = spec.wanted.printTrailOrderNumber ?? generatePrintTrailOrderNumber();
  const order: Order = {
    uuid: newUuidOf(deps),
    teamCode: spec.teamCode,
    channelId: spec.channelId,
    origin: spec.origin,
    orderNumber: spec.wanted.orderNumber,
    printTrailOrderNumber: printTrail,
    status: 'draft',
    fulfillableStatus: 'fulfillable',
    fulfillableFrom: now,
    scheduledAt: spec.wanted.scheduledAt,
    confirmedAt: null,
    stockHeld: false,
    shippingMethod: null,
    shippingDetails: spec.wanted.shippingDetails,
    lines: spec.lines,
    fulfilments: [],
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (spec.wanted.reserve && order.lines.length > 0) {
    const outcome = await holdLines(ctx.unit.stock, order, order.lines);
    // All or nothing: a short answer held nothing, so there is nothing to give back.
    if (outcome.kind === 'short') throw stockShortProblem(order, outcome.shortages);
    undoHoldOnRollback(ctx, order.uuid, outcome);
    order.stockHeld = true;
  }
  order.fulfillableStatus = await followStock(tx, order, order.lines, { known: false, figures: spec.figures });
  // Sent with COMMIT. A taken printTrailOrderNumber fails the transaction there; the conflict is
  // the answer (compensations give holds back).
  insertOrder(tx, order, { from: null, to: 'draft', at: now, actor: ctx.cause.actor, trigger: ctx.cause.trigger, reason: null }, (err) =>
    uniqueViolation(err) === PRINT_TRAIL_KEY ? printTrailConflict(printTrail, spec.where) : undefined,
  );
  ctx.unit.events.push(orderEvents.created(order));
  return order;
}

function sameShipping(a: ShippingDetails | null, b: ShippingDetails | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameLines(a: readonly OrderLine[], b: readonly OrderLine[]): boolean {
  const key = (ls: readonly OrderLine[]) =>
    JSON.stringify([...ls].sort((x, y) => x.lineNumber - y.lineNumber).map((l) => [l.lineNumber, l.sku, l.quantity, l.productUuid]));
  return key(a) === key(b);
}

/**
 * Rule O2's "replaced by what was sent": lines, shipping details, scheduledAt, and the
 * printTrailOrderNumber when given. Holds follow `reserve`; the fulfillable status is derived
 * again for the new lines (an event when it changes). The same request again changes nothing
 * (no write, no event), so retries are cheap and quiet.
 */
export async function replaceOrder(ctx: ChangeContext, existing: Order, wanted: ValidOrderInput, lines: OrderLine[]): Promise<Order> {
  const { deps, tx } = ctx;
  const printTrail = wanted.printTrailOrderNumber ?? existing.printTrailOrderNumber;
  if (printTrail !== existing.printTrailOrderNumber && (await printTrailNumberTaken(tx, existing.teamCode, printTrail, existing.uuid))) {
    throw printTrailConflict(printTrail);
  }
  const reserve = wanted.reserve && lines.length > 0;
  const unchanged =
    existing.status === 'draft' &&
    printTrail === existing.printTrailOrderNumber &&
    sameLines(existing.lines, lines) &&
    sameShipping(existing.shippingDetails, wanted.shippingDetails) &&
    (existing.scheduledAt?.getTime() ?? null) === (wanted.scheduledAt?.getTime() ?? null) &&
    reserve === existing.stockHeld;
  if (unchanged) return existing;

  const decision = decide({ status: existing.status, confirmedAt: existing.confirmedAt, fulfilmentStatuses: existing.fulfilments.map((f) => f.status) }, 'replace', {
    now: ctx.now,
  });
  if (decision.kind !== 'move') throw new Error(`replace refused after rule O2 allowed it: ${JSON.stringify(decision)}`);
  const next: Order = {
    ...existing,
    printTrailOrderNumber: printTrail,
    lines,
    shippingDetails: wanted.shippingDetails,
    scheduledAt: wanted.scheduledAt,
    fulfillableFrom: ctx.now,
  };
  if (reserve) {
    const outcome = await holdLines(ctx.unit.stock, existing, lines);
    if (outcome.kind === 'short') throw stockShortProblem(next, outcome.shortages);
    undoHoldOnRollback(ctx, existing.uuid, outcome);
    next.stockHeld = true;
  } else if (existing.stockHeld) {
    await releaseHolds(ctx, existing);
    next.stockHeld = false;
  }
  await replaceLines(tx, existing.uuid, lines);
  next.fulfillableStatus = await followStock(tx, next, lines, { released: existing.stockHeld ? existing.lines : [] });
  const saved = await applyMove(ctx, existing, decision, { next });
  ctx.unit.events.push(orderEvents.revised(saved, 'replaced'));
  if (saved.fulfillableStatus !== existing.fulfillableStatus) {
    ctx.unit.events.push(orderEvents.fulfillableStatusChanged(saved, existing.fulfillableStatus, saved.fulfillableStatus));
  }
  return saved;
}
