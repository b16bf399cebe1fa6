import type pg from 'pg';
import type { BatchError } from '@pf/platform/db/batch';
import { statement } from '@pf/platform/db/statement';
import { noRead, read, type PgTransaction, type Queryable, type Read } from '@pf/platform/db/transaction';
import type { Fulfilment, Order, OrderLine, ShippingMethodChoice, StatusChange } from '../domain/model';
import type { NewFulfilment } from '../domain/fulfilments';
import type { ShippingDetails } from '../domain/order-input';
import type { FulfilmentStatus, OrderStatus } from '../domain/order-state-machine';

/**
 * The order tables, in typed raw SQL on pg (the hot path: create, replay, confirm). `Sql` is the
 * pool (reads) or a use case's transaction client. Names are schema-qualified.
 */
/** A read: the pool or a transaction. */
export type Sql = Queryable;
/** A change: a transaction; writes nobody reads the answer of are deferred (sent with the next statement or COMMIT). */
export type Tx = PgTransaction;

interface OrderRow {
  uuid: string;
  team_code: string;
  channel_id: string;
  origin: Order['origin'];
  order_number: string;
  print_trail_order_number: string;
  status: OrderStatus;
  fulfillable_status: Order['fulfillableStatus'];
  fulfillable_from: Date;
  scheduled_at: Date | null;
  confirmed_at: Date | null;
  stock_held: boolean;
  shipping_method_code: string | null;
  shipping_method_name: string | null;
  ship_first_name: string | null;
  ship_last_name: string | null;
  ship_company_name: string | null;
  ship_address1: string | null;
  ship_address2: string | null;
  ship_address3: string | null;
  ship_address4: string | null;
  ship_city: string | null;
  ship_postal_code: string | null;
  ship_state_name: string | null;
  ship_state_code: string | null;
  ship_country_name: string | null;
  ship_country_code: string | null;
  ship_email: string | null;
  ship_phone: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  lines: { lineNumber: number; sku: string; quantity: number; productUuid: string | null }[];
  fulfilments: {
    uuid: string;
    status: FulfilmentStatus;
    code: string;
    countryCode: string;
    methodCode: string | null;
    methodName: string | null;
    createdAt: string;
    updatedAt: string;
    lines: { lineNumber: number; sku: string; quantity: number }[] | null;
    tracking: { carrier: string | null; trackingNumber: string | null; trackingUrl: string | null; methodCode: string | null; methodName: string | null; createdAt: string }[] | null;
  }[];
}

/** One query for orders with their lines, fulfilments, fulfilment lines and tracking. */
const ORDER_SELECT = `
  SELECT o.uuid::text AS uuid, o.team_code, o.channel_id, o.origin, o.order_number, o.print_trail_order_number, o.status,
         o.fulfillable_status, o.fulfillable_from, o.scheduled_at, o.confirmed_at, o.stock_held, o.shipping_method_code,
         o.shipping_method_name, o.ship_first_name, o.ship_last_name, o.ship_company_name, o.ship_address1, o.ship_address2,
         o.ship_address3, o.ship_address4, o.ship_city, o.ship_postal_code, o.ship_state_name, o.ship_state_code,
         o.ship_country_name, o.ship_country_code, o.ship_email, o.ship_phone, o.created_at, o.updated_at, o.version,
         COALESCE((SELECT json_agg(json_build_object('lineNumber', l.line_number, 'sku', l.sku, 'quantity', l.quantity,
                                                     'productUuid', l.product_uuid) ORDER BY l.line_number)
                     FROM orders.order_line l WHERE l.order_uuid = o.uuid), '[]'::json) AS lines,
         COALESCE((SELECT json_agg(json_build_object(
                     'uuid', f.uuid, 'status', f.status, 'code', f.supplier_location_code, 'countryCode', f.supplier_country_code,
                     'methodCode', f.shipping_method_code, 'methodName', f.shipping_method_name,
                     'createdAt', f.created_at, 'updatedAt', f.updated_at,
                     'lines', (SELECT json_agg(json_build_object('lineNumber', fl.line_number, 'sku', fl.sku, 'quantity', fl.quantity)
                                               ORDER BY fl.line_number)
                                 FROM orders.fulfilment_line fl WHERE fl.fulfilment_uuid = f.uuid),
                     'tracking', (SELECT json_agg(json_build_object('carrier', t.carrier, 'trackingNumber', t.tracking_number,
                                                  'trackingUrl', t.tracking_url, 'methodCode', t.method_code,
                                                  'methodName', t.method_name, 'createdAt', t.created_at) ORDER BY t.id)
                                    FROM orders.tracking_detail t WHERE t.fulfilment_uuid = f.uuid))
                   ORDER BY f.created_at, f.supplier_location_code)
                     FROM orders.fulfilment f WHERE f.order_uuid = o.uuid), '[]'::json) AS fulfilments
    FROM orders.orders o`;

const LOAD_ORDERS = statement('orders', `${ORDER_SELECT} WHERE o.uuid = ANY($1::uuid[])`);

function toOrder(r: OrderRow): Order {
  const hasShipping = [
    r.ship_first_name,
    r.ship_last_name,
    r.ship_company_name,
    r.ship_address1,
    r.ship_address2,
    r.ship_address3,
    r.ship_address4,
    r.ship_city,
    r.ship_postal_code,
    r.ship_state_name,
    r.ship_state_code,
    r.ship_country_name,
    r.ship_country_code,
    r.ship_email,
    r.ship_phone,
  ].some((v) => v !== null);
  const shippingDetails: ShippingDetails | null = hasShipping
    ? {
        firstName: r.ship_first_name,
        lastName: r.ship_last_name,
        companyName: r.ship_company_name,
        address1: r.ship_address1,
        address2: r.ship_address2,
        address3: r.ship_address3,
        address4: r.ship_address4,
        city: r.ship_city,
        postalCode: r.ship_postal_code,
        state: r.ship_state_name !== null || r.ship_state_code !== null ? { name: r.ship_state_name, code: r.ship_state_code } : null,
        country: r.ship_country_name !== null || r.ship_country_code !== null ? { name: r.ship_country_name, code: r.ship_country_code } : null,
        email: r.ship_email,
        phone: r.ship_phone,
      }
    : null;
  const fulfilments: Fulfilment[] = r.fulfilments.map((f) => ({
    uuid: f.uuid,
    status: f.status,
    supplierLocation: { code: f.code, countryCode: f.countryCode },
    shippingMethod: f.methodCode !== null ? { code: f.methodCode, name: f.methodName ?? f.methodCode } : null,
    lines: f.lines ?? [],
    trackingDetails: (f.tracking ?? []).map((t) => ({ ...t, fulfilmentUuid: f.uuid, createdAt: new Date(t.createdAt) })),
    createdAt: new Date(f.createdAt),
    updatedAt: new Date(f.updatedAt),
  }));
  return {
    uuid: r.uuid,
    teamCode: r.team_code,
    channelId: r.channel_id,
    origin: r.origin,
    orderNumber: r.order_number,
    printTrailOrderNumber: r.print_trail_order_number,
    status: r.status,
    fulfillableStatus: r.fulfillable_status,
    fulfillableFrom: r.fulfillable_from,
    scheduledAt: r.scheduled_at,
    confirmedAt: r.confirmed_at,
    stockHeld: r.stock_held,
    shippingMethod: r.shipping_method_code !== null ? { code: r.shipping_method_code, name: r.shipping_method_name ?? r.shipping_method_code } : null,
    shippingDetails,
    lines: r.lines,
    fulfilments,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    version: r.version,
  };
}

/** Orders by uuid, in the order asked (unknown uuids are left out). */
export async function loadOrders(db: Sql, uuids: readonly string[]): Promise<Order[]> {
  if (uuids.length === 0) return [];
  const { rows } = await db.query<OrderRow>(LOAD_ORDERS([uuids]));
  const byUuid = new Map(rows.map((r) => [r.uuid, toOrder(r)]));
  return uuids.flatMap((u) => byUuid.get(u) ?? []);
}

export async function loadOrder(db: Sql, uuid: string): Promise<Order | null> {
  return (await loadOrders(db, [uuid]))[0] ?? null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const LOCK_ORDER = statement('orders', `SELECT 1 FROM orders.orders WHERE uuid = $1::uuid FOR UPDATE`);
const LOCK_ORDER_NOWAIT = statement('orders', `SELECT 1 FROM orders.orders WHERE uuid = $1::uuid FOR UPDATE NOWAIT`);

/**
 * Locks the order row for the rest of the transaction and loads the order. `nowait`: a row
 * another transaction holds answers 'locked' at once instead of waiting.
 */
export async function lockAndLoadOrder(tx: Tx, uuid: string, opts: { nowait?: boolean } = {}): Promise<Order | null | 'locked'> {
  if (!isUuid(uuid)) return null;
  // Two statements on purpose: a statement that waited for the row lock sees the locked row as
  // committed by the other transaction, but every other table (lines, fulfilments) through the
  // snapshot it took before waiting. The read after the lock takes a fresh snapshot.
  // NOWAIT runs under a savepoint so that finding the row locked leaves the transaction usable.
  if (!opts.nowait) return read(tx, lockAndLoadRead(uuid));
  await tx.query('SAVEPOINT lock_order');
  try {
    const { rowCount } = await tx.query(LOCK_ORDER_NOWAIT([uuid]));
    if (!rowCount) return null;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      await tx.query('ROLLBACK TO SAVEPOINT lock_order');
      return 'locked';
    }
    throw err;
  }
  return loadOrder(tx, uuid);
}

/** lockAndLoadOrder as a read (waiting for the lock): lock, then read, one round trip in a transaction. */
export function lockAndLoadRead(uuid: string): Read<Order | null> {
  if (!isUuid(uuid)) return noRead(null);
  return {
    statements: [LOCK_ORDER([uuid]), LOAD_ORDERS([[uuid]])],
    answer: ([locked, loaded]) => (locked!.rowCount && loaded!.rows[0] ? toOrder(loaded!.rows[0] as OrderRow) : null),
  };
}

const LOCK_ORDER_OF_FULFILMENT = statement(
  'orders',
  `SELECT o.uuid::text AS uuid FROM orders.orders o JOIN orders.fulfilment f ON f.order_uuid = o.uuid
    WHERE f.uuid = $1::uuid FOR UPDATE OF o`,
);

/** The order a fulfilment belongs to, locked. */
export async function lockOrderOfFulfilment(tx: Tx, fulfilmentUuid: string): Promise<Order | null> {
  if (!isUuid(fulfilmentUuid)) return null;
  const { rows } = await tx.query<{ uuid: string }>(LOCK_ORDER_OF_FULFILMENT([fulfilmentUuid]));
  const order = rows[0] ? await loadOrder(tx, rows[0].uuid) : null;
  // The fulfilment may be gone once the lock is ours: replaced by an amendment, or dropped by an
  // address rejection, while this waited. Then it is not the order's any more.
  return order?.fulfilments.some((f) => f.uuid === fulfilmentUuid) ? order : null;
}

const LOCK_ORDER_NUMBER = statement('orders', `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`);
const LOCK_API_ORDER_BY_NUMBER = statement(
  'orders',
  `SELECT 1 FROM orders.orders WHERE channel_id = $1 AND order_number = $2 AND origin = 'api' FOR UPDATE`,
);
const LOAD_API_ORDER_BY_NUMBER = statement('orders', `${ORDER_SELECT} WHERE o.channel_id = $1 AND o.order_number = $2 AND o.origin = 'api'`);

/**
 * The API order with this number on the channel, locked, or null; either way the number is locked
 * for the rest of the transaction. The number's lock serialises every create and replay of one
 * order number on one channel (rule O2): concurrent identical requests run one after the other,
 * and the later ones find the order the first made. Three statements, one round trip in a
 * transaction: number lock, row lock, then the read (see lockAndLoadOrder).
 */
export function lockApiOrderRead(channelId: string, orderNumber: string): Read<Order | null> {
  return {
    statements: [
      LOCK_ORDER_NUMBER([`orders:${channelId.length}:${channelId}:${orderNumber}`]),
      LOCK_API_ORDER_BY_NUMBER([channelId, orderNumber]),
      LOAD_API_ORDER_BY_NUMBER([channelId, orderNumber]),
    ],
    answer: ([, locked, loaded]) => (locked!.rowCount && loaded!.rows[0] ? toOrder(loaded!.rows[0] as OrderRow) : null),
  };
}

const LOCK_KEYS = statement('orders', `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k`);

/**
 * Transaction advisory locks on `keys`, taken in one sorted order: two changes locking some of the
 * same keys never wait for each other in a circle.
 */
function lockKeys(keys: readonly string[]) {
  return LOCK_KEYS([[...new Set(keys)].sort()]);
}

/**
 * Locks printTrailOrderNumbers of the team for the rest of the transaction (those given; none: no
 * statement). Every change that gives an order a number of the client's takes it before checking
 * or using the number, so a check made under it holds until COMMIT: a replay that swaps an
 * order's stock holds can no longer fail at COMMIT on a number another order took meanwhile, when
 * the holds it gave up may have been sold (see replaceOrder).
 */
export function lockPrintTrailNumbersRead(teamCode: string, numbers: readonly (string | null)[]): Read<void> {
  const given = numbers.filter((n): n is string => n !== null);
  return {
    statements: given.length > 0 ? [lockKeys(given.map((n) => `print-trail:${teamCode.length}:${teamCode}:${n}`))] : [],
    answer: () => undefined,
  };
}

const MERCHANT_ORDERS_BY_NUMBER = statement(
  'orders',
  `SELECT order_number, uuid FROM orders.orders WHERE channel_id = $1 AND order_number = ANY($2::text[]) AND origin <> 'api'`,
);

/**
 * The orders entered or imported on the channel under these numbers (number to uuid), with each
 * number locked for the rest of the transaction: concurrent entries and imports of one number
 * run one after the other, and the later ones find the order the first made. Numbers are locked
 * in one sorted order, so two imports sharing numbers never wait for each other in a circle. API
 * orders are another namespace (rule O2 matches only them), locked under another key.
 */
export async function lockMerchantOrderNumbers(tx: Sql, channelId: string, orderNumbers: readonly string[]): Promise<Map<string, string>> {
  const numbers = [...new Set(orderNumbers)];
  await tx.query(lockKeys(numbers.map((n) => `merchant-orders:${channelId.length}:${channelId}:${n}`)));
  const { rows } = await tx.query<{ order_number: string; uuid: string }>(MERCHANT_ORDERS_BY_NUMBER([channelId, numbers]));
  return new Map(rows.map((r) => [r.order_number, r.uuid]));
}

const PRINT_TRAIL_NUMBER_TAKEN = statement(
  'orders',
  `SELECT 1 FROM orders.orders WHERE team_code = $1 AND print_trail_order_number = $2 AND ($3::uuid IS NULL OR uuid <> $3::uuid)`,
);

/** Whether another order of the team (not `exceptUuid`) uses this printTrailOrderNumber. */
export async function printTrailNumberTaken(db: Sql, teamCode: string, printTrailOrderNumber: string, exceptUuid: string | null): Promise<boolean> {
  const { rowCount } = await db.query(PRINT_TRAIL_NUMBER_TAKEN([teamCode, printTrailOrderNumber, exceptUuid]));
  return (rowCount ?? 0) > 0;
}

const SHIP_COLUMNS = [
  'ship_first_name',
  'ship_last_name',
  'ship_company_name',
  'ship_address1',
  'ship_address2',
  'ship_address3',
  'ship_address4',
  'ship_city',
  'ship_postal_code',
  'ship_state_name',
  'ship_state_code',
  'ship_country_name',
  'ship_country_code',
  'ship_email',
  'ship_phone',
] as const;

function shipValues(d: ShippingDetails | null): (string | null)[] {
  return [
    d?.firstName ?? null,
    d?.lastName ?? null,
    d?.companyName ?? null,
    d?.address1 ?? null,
    d?.address2 ?? null,
    d?.address3 ?? null,
    d?.address4 ?? null,
    d?.city ?? null,
    d?.postalCode ?? null,
    d?.state?.name ?? null,
    d?.state?.code ?? null,
    d?.country?.name ?? null,
    d?.country?.code ?? null,
    d?.email ?? null,
    d?.phone ?? null,
  ];
}

/**
 * Inserts the order row, its lines and its first status change in one statement, deferred: a
 * failure (a taken printTrailOrderNumber) surfaces later in the transaction, through `onError`.
 */
export function insertOrder(tx: Tx, o: Order, created: StatusChange, onError?: (err: BatchError) => Error | undefined): void {
  const base = [
    o.uuid,
    o.teamCode,
    o.channelId,
    o.origin,
    o.orderNumber,
    o.printTrailOrderNumber,
    o.status,
    o.fulfillableStatus,
    o.fulfillableFrom,
    o.scheduledAt,
    o.confirmedAt,
    o.stockHeld,
    o.shippingMethod?.code ?? null,
    o.shippingMethod?.name ?? null,
    ...shipValues(o.shippingDetails),
    o.createdAt,
    o.updatedAt,
    o.version,
  ];
  if (base.length !== ORDER_COLUMNS) throw new Error(`insertOrder: ${base.length} order values for ${ORDER_COLUMNS} columns`);
  tx.defer(INSERT_ORDER([...base, ...lineArrays(o.lines), created.from, created.to, created.at, created.actor, created.trigger, created.reason]), onError);
}

/** The order columns insertOrder writes, in its order: 14 before the shipping columns, 3 after. */
const ORDER_COLUMNS = 14 + SHIP_COLUMNS.length + 3;
const INSERT_ORDER = statement(
  'orders',
  `WITH o AS (
     INSERT INTO orders.orders (uuid, team_code, channel_id, origin, order_number, print_trail_order_number, status,
       fulfillable_status, fulfillable_from, scheduled_at, confirmed_at, stock_held, shipping_method_code,
       shipping_method_name, ${SHIP_COLUMNS.join(', ')}, created_at, updated_at, version)
     VALUES (${Array.from({ length: ORDER_COLUMNS }, (_, i) => `$${i + 1}`).join(', ')}) RETURNING uuid),
   h AS (
     INSERT INTO orders.order_status_change (order_uuid, from_status, to_status, at, actor, trigger, reason)
     SELECT o.uuid, $${ORDER_COLUMNS + 5}, $${ORDER_COLUMNS + 6}, $${ORDER_COLUMNS + 7}, $${ORDER_COLUMNS + 8}, $${ORDER_COLUMNS + 9}, $${ORDER_COLUMNS + 10} FROM o)
   INSERT INTO orders.order_line (order_uuid, line_number, sku, quantity, product_uuid)
   SELECT o.uuid, l.line_number, l.sku, l.quantity, l.product_uuid
     FROM o, unnest($${ORDER_COLUMNS + 1}::int[], $${ORDER_COLUMNS + 2}::text[], $${ORDER_COLUMNS + 3}::int[], $${ORDER_COLUMNS + 4}::uuid[])
          AS l(line_number, sku, quantity, product_uuid)`,
);

function lineArrays(lines: readonly OrderLine[]): unknown[] {
  return [lines.map((l) => l.lineNumber), lines.map((l) => l.sku), lines.map((l) => l.quantity), lines.map((l) => l.productUuid)];
}

/**
 * Writes every order column (the use case changed the order in memory); bumps the row's version,
 * and `o.version` with it, so that the order a change answers has the version a read gives.
 */
export function updateOrder(tx: Tx, o: Order): void {
  o.version += 1;
  const values = [
    o.uuid,
    o.printTrailOrderNumber,
    o.status,
    o.fulfillableStatus,
    o.fulfillableFrom,
    o.scheduledAt,
    o.confirmedAt,
    o.stockHeld,
    o.shippingMethod?.code ?? null,
    o.shippingMethod?.name ?? null,
    ...shipValues(o.shippingDetails),
    o.updatedAt,
  ];
  tx.defer(UPDATE_ORDER(values));
}

const UPDATE_ORDER = statement(
  'orders',
  `UPDATE orders.orders SET print_trail_order_number = $2, status = $3, fulfillable_status = $4, fulfillable_from = $5,
          scheduled_at = $6, confirmed_at = $7, stock_held = $8, shipping_method_code = $9, shipping_method_name = $10,
          ${SHIP_COLUMNS.map((c, i) => `${c} = $${11 + i}`).join(', ')}, updated_at = $${11 + SHIP_COLUMNS.length}, version = version + 1
    WHERE uuid = $1::uuid`,
);

/** Replaces the order's lines with these. */
export function replaceLines(tx: Tx, orderUuid: string, lines: readonly OrderLine[]): void {
  // Two statements: a DELETE and an INSERT of the same keys in one statement may see each other's rows.
  tx.defer(DELETE_LINES([orderUuid]));
  tx.defer(INSERT_LINES([orderUuid, ...lineArrays(lines)]));
}

const DELETE_LINES = statement('orders', `DELETE FROM orders.order_line WHERE order_uuid = $1::uuid`);
const INSERT_LINES = statement(
  'orders',
  `INSERT INTO orders.order_line (order_uuid, line_number, sku, quantity, product_uuid)
   SELECT $1::uuid, l.line_number, l.sku, l.quantity, l.product_uuid
     FROM unnest($2::int[], $3::text[], $4::int[], $5::uuid[]) AS l(line_number, sku, quantity, product_uuid)`,
);

/** Inserts draft fulfilments with their lines (one statement). */
export function insertFulfilments(tx: Tx, orderUuid: string, fulfilments: readonly NewFulfilment[], at: Date): void {
  if (fulfilments.length === 0) return;
  const lines = fulfilments.flatMap((f) => f.lines.map((l) => ({ f: f.uuid, ...l })));
  tx.defer(
    INSERT_FULFILMENTS([
      orderUuid,
      fulfilments.map((f) => f.uuid),
      fulfilments.map((f) => f.supplierLocation.code),
      fulfilments.map((f) => f.supplierLocation.countryCode),
      fulfilments.map((f) => f.shippingMethod?.code ?? null),
      fulfilments.map((f) => f.shippingMethod?.name ?? null),
      at,
      lines.map((l) => l.f),
      lines.map((l) => l.lineNumber),
      lines.map((l) => l.sku),
      lines.map((l) => l.quantity),
    ]),
  );
}

const INSERT_FULFILMENTS = statement(
  'orders',
  `WITH f AS (
     INSERT INTO orders.fulfilment (uuid, order_uuid, status, supplier_location_code, supplier_country_code, shipping_method_code,
                                    shipping_method_name, created_at, updated_at)
     SELECT f.uuid, $1::uuid, 'draft', f.code, f.country, f.method_code, f.method_name, $7, $7
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) AS f(uuid, code, country, method_code, method_name)
     RETURNING uuid)
   INSERT INTO orders.fulfilment_line (fulfilment_uuid, line_number, sku, quantity)
   SELECT l.fulfilment_uuid, l.line_number, l.sku, l.quantity
     FROM unnest($8::uuid[], $9::int[], $10::text[], $11::int[]) AS l(fulfilment_uuid, line_number, sku, quantity)
     JOIN f ON f.uuid = l.fulfilment_uuid`,
);

const DELETE_FULFILMENTS = statement('orders', `DELETE FROM orders.fulfilment WHERE order_uuid = $1::uuid`);

/** Drops every fulfilment of the order (with lines and tracking). */
export function deleteFulfilments(tx: Tx, orderUuid: string): void {
  tx.defer(DELETE_FULFILMENTS([orderUuid]));
}

const SET_DRAFT_FULFILMENTS_SHIPPING_METHOD = statement(
  'orders',
  `UPDATE orders.fulfilment SET shipping_method_code = $2, shipping_method_name = $3, updated_at = $4
    WHERE order_uuid = $1::uuid AND status = 'draft'`,
);

/** The shipping method of every draft fulfilment of the order. */
export function setDraftFulfilmentsShippingMethod(tx: Tx, orderUuid: string, method: ShippingMethodChoice, at: Date): void {
  tx.defer(SET_DRAFT_FULFILMENTS_SHIPPING_METHOD([orderUuid, method.code, method.name, at]));
}

const SET_FULFILMENT_STATUSES = statement(
  'orders',
  `UPDATE orders.fulfilment f SET status = c.status, updated_at = $3
     FROM unnest($1::uuid[], $2::text[]) AS c(uuid, status) WHERE f.uuid = c.uuid`,
);

export function setFulfilmentStatuses(tx: Tx, changes: readonly { uuid: string; status: FulfilmentStatus }[], at: Date): void {
  if (changes.length === 0) return;
  tx.defer(SET_FULFILMENT_STATUSES([changes.map((c) => c.uuid), changes.map((c) => c.status), at]));
}

export function insertTracking(
  tx: Tx,
  fulfilmentUuid: string,
  details: readonly { carrier: string | null; trackingNumber: string | null; trackingUrl: string | null; methodCode: string | null; methodName: string | null }[],
  at: Date,
): void {
  if (details.length === 0) return;
  tx.defer({
    text: `INSERT INTO orders.tracking_detail (fulfilment_uuid, carrier, tracking_number, tracking_url, method_code, method_name, created_at)
     SELECT $1::uuid, t.*, $7 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t`,
    values: [
      fulfilmentUuid,
      details.map((d) => d.carrier),
      details.map((d) => d.trackingNumber),
      details.map((d) => d.trackingUrl),
      details.map((d) => d.methodCode),
      details.map((d) => d.methodName),
      at,
    ],
  });
}

const INSERT_STATUS_CHANGE = statement(
  'orders',
  `INSERT INTO orders.order_status_change (order_uuid, from_status, to_status, at, actor, trigger, reason)
   VALUES ($1::uuid, $2, $3, $4, $5, $6, $7)`,
);

export function insertStatusChange(tx: Tx, orderUuid: string, change: StatusChange): void {
  tx.defer(INSERT_STATUS_CHANGE([orderUuid, change.from, change.to, change.at, change.actor, change.trigger, change.reason]));
}

const SET_TIMER = statement(
  'orders',
  `INSERT INTO orders.order_timer (order_uuid, kind, due_at) VALUES ($1::uuid, $2, $3)
   ON CONFLICT (order_uuid) DO UPDATE SET kind = EXCLUDED.kind, due_at = EXCLUDED.due_at, claimed_by = NULL,
                                          claimed_until = NULL, attempts = 0, last_error = NULL`,
);

/** Sets (or replaces) the order's durable timer. */
export function setTimer(tx: Tx, orderUuid: string, kind: 'countdown' | 'schedule', dueAt: Date): void {
  tx.defer(SET_TIMER([orderUuid, kind, dueAt]));
}

const CLEAR_TIMER = statement('orders', `DELETE FROM orders.order_timer WHERE order_uuid = $1::uuid`);

export function clearTimer(tx: Tx, orderUuid: string): void {
  tx.defer(CLEAR_TIMER([orderUuid]));
}

export type { ShippingMethodChoice };
