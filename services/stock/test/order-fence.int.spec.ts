import { randomUUID } from 'node:crypto';
import { backOffice, holdOrder, holdRowsOf, ordersService, setStock, startStock, stockRowsWithPlaced, warehouse, type StockHarness } from './harness';

/** Every hold mutation, as the orders service sends it with a fence token. */
const FENCED = {
  hold: `mutation ($input: HoldStockInput!) { holdStock(input: $input) { __typename } }`,
  release: `mutation ($orderUuid: ID!, $fence: String) { releaseHolds(orderUuid: $orderUuid, fence: $fence) { id } }`,
  reinstate: `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { reinstateHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`,
  restore: `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { restoreHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`,
  consume: `mutation ($orderUuid: ID!, $fence: String) { consumeHolds(orderUuid: $orderUuid, fence: $fence) { id } }`,
  unconsume: `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { unconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`,
  return: `mutation ($orderUuid: ID!, $fence: String) { returnHolds(orderUuid: $orderUuid, fence: $fence) { id } }`,
  reconsume: `mutation ($orderUuid: ID!, $holdIds: [ID!]!, $fence: String) { reconsumeHolds(orderUuid: $orderUuid, holdIds: $holdIds, fence: $fence) { id } }`,
  fence: `mutation ($orderUuid: ID!, $fence: String!) { fenceOrderHolds(orderUuid: $orderUuid, fence: $fence) { id status quantity lineNumber } }`,
};

describe('the order fence: calls of a change a later change has fenced out are refused', () => {
  let h: StockHarness;
  const team = 'fence';
  let wh: string;

  beforeAll(async () => {
    h = await startStock();
    wh = await warehouse(h, team, 'a');
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  async function heldOrder(): Promise<{ orderUuid: string; productUuid: string }> {
    const p = await h.product(team);
    await setStock(h, team, p.productUuid, wh, 10);
    const orderUuid = randomUUID();
    await holdOrder(h, team, orderUuid, [{ lineNumber: 1, productUuid: p.productUuid, quantity: 3 }]);
    return { orderUuid, productUuid: p.productUuid };
  }
  const fenceOf = async (orderUuid: string) =>
    (await h.pool.query<{ fence: string }>('SELECT fence::text AS fence FROM stock.order_fence WHERE order_uuid = $1', [orderUuid])).rows[0]?.fence ?? null;

  it('raising the fence answers every hold of the order and records the token; a lower token cannot lower it', async () => {
    const { orderUuid } = await heldOrder();
    const { fenceOrderHolds } = await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '20' });
    expect(fenceOrderHolds).toEqual([{ id: expect.any(String), status: 'PLACED', quantity: 3, lineNumber: 1 }]);
    expect(await fenceOf(orderUuid)).toBe('20');
    expect(await h.problem(ordersService, FENCED.fence, { orderUuid, fence: '19' })).toMatchObject({ problemType: 'conflict', extensions: { fenced: true } });
    expect(await fenceOf(orderUuid)).toBe('20');
    await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '20' });
    await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '25' });
    expect(await fenceOf(orderUuid)).toBe('25');
  });

  it('once fenced, every hold mutation with a lower token, or none, is refused and changes nothing', async () => {
    const { orderUuid, productUuid } = await heldOrder();
    const holdIds = (await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '100' })).fenceOrderHolds.map((x: { id: string }) => x.id);
    const before = { rows: await stockRowsWithPlaced(h, productUuid), holds: await holdRowsOf(h, team, orderUuid) };
    const calls: [string, string, Record<string, unknown>][] = [
      ['hold', FENCED.hold, { input: { teamCode: team, orderUuid, lines: [{ lineNumber: 1, productUuid, quantity: 5 }] } }],
      ['release', FENCED.release, { orderUuid }],
      ['reinstate', FENCED.reinstate, { orderUuid, holdIds }],
      ['restore', FENCED.restore, { orderUuid, holdIds: [] }],
      ['consume', FENCED.consume, { orderUuid }],
      ['unconsume', FENCED.unconsume, { orderUuid, holdIds }],
      ['return', FENCED.return, { orderUuid }],
      ['reconsume', FENCED.reconsume, { orderUuid, holdIds }],
    ];
    for (const [name, query, variables] of calls) {
      for (const fence of ['99', null]) {
        const withFence = name === 'hold' ? { input: { ...(variables.input as object), fence } } : { ...variables, fence };
        const problem = await h.problem(ordersService, query, withFence);
        expect({ name, fence, problem }).toEqual({ name, fence, problem: expect.objectContaining({ problemType: 'conflict', extensions: { fenced: true } }) });
      }
    }
    expect({ rows: await stockRowsWithPlaced(h, productUuid), holds: await holdRowsOf(h, team, orderUuid) }).toEqual(before);
  });

  it('the change that raised the fence, and later ones, go on: hold, release, consume', async () => {
    const { orderUuid, productUuid } = await heldOrder();
    await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '200' });
    const { holdStock } = await h.ok(ordersService, FENCED.hold, { input: { teamCode: team, orderUuid, lines: [{ lineNumber: 1, productUuid, quantity: 4 }], fence: '200' } });
    expect(holdStock.__typename).toBe('StockHeld');
    expect((await h.ok(ordersService, FENCED.release, { orderUuid, fence: '201' })).releaseHolds).toHaveLength(1);
    await h.ok(ordersService, FENCED.hold, { input: { teamCode: team, orderUuid, lines: [{ lineNumber: 1, productUuid, quantity: 2 }], fence: '202' } });
    expect((await h.ok(ordersService, FENCED.consume, { orderUuid, fence: '202' })).consumeHolds).toHaveLength(1);
    expect(await holdRowsOf(h, team, orderUuid)).toEqual([
      [1, 'a', 3, 'RELEASED'],
      [1, 'a', 4, 'RELEASED'],
      [1, 'a', 2, 'CONSUMED'],
    ]);
    // A later token does not raise the fence by itself: only fenceOrderHolds does.
    expect(await fenceOf(orderUuid)).toBe('200');
  });

  it("orders never fenced take calls with or without a token; one order's fence leaves the others alone", async () => {
    const fenced = await heldOrder();
    await h.ok(ordersService, FENCED.fence, { orderUuid: fenced.orderUuid, fence: '300' });
    const other = await heldOrder();
    expect((await h.ok(ordersService, FENCED.release, { orderUuid: other.orderUuid, fence: '1' })).releaseHolds).toHaveLength(1);
    await holdOrder(h, team, other.orderUuid, [{ lineNumber: 1, productUuid: other.productUuid, quantity: 1 }]);
    expect((await h.ok(ordersService, FENCED.release, { orderUuid: other.orderUuid, fence: null })).releaseHolds).toHaveLength(1);
    expect(await fenceOf(other.orderUuid)).toBeNull();
  });

  it("a late call and a fence meet on the order's lock: whichever takes it first, the fence's answer shows what the call did or the call is refused", async () => {
    for (const lateFirst of [true, false]) {
      const { orderUuid, productUuid } = await heldOrder();
      // Another transaction holds the order's lock, as a hold change in flight would.
      const holder = await h.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended('stock-hold:' || $1, 0))`, [orderUuid]);
        const waiting = async () =>
          (
            await h.pool.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            )
          ).rows[0]!.n;
        const queued = async (before: number) => {
          for (let i = 0; i < 200 && (await waiting()) <= before; i++) await new Promise((r) => setTimeout(r, 10));
        };
        const late = () => h.gql(ordersService, FENCED.release, { orderUuid, fence: '40' });
        const fence = () => h.gql(ordersService, FENCED.fence, { orderUuid, fence: '50' });
        const first = lateFirst ? late() : fence();
        await queued(0);
        const second = lateFirst ? fence() : late();
        await queued(1);
        await holder.query('COMMIT');
        const [a, b] = await Promise.all([first, second]);
        const [lateRes, fenceRes] = lateFirst ? [a, b] : [b, a];
        const fencedHolds = (fenceRes.data as any).fenceOrderHolds as { status: string }[];
        if (lateFirst) {
          // The late release went first: the fence answers the hold released.
          expect(lateRes.errors).toBeUndefined();
          expect(fencedHolds.map((x) => x.status)).toEqual(['RELEASED']);
        } else {
          // The fence went first: the late release is refused, the hold still placed.
          expect(lateRes.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'conflict', extensions: { fenced: true } });
          expect(fencedHolds.map((x) => x.status)).toEqual(['PLACED']);
          expect((await stockRowsWithPlaced(h, productUuid))[0]).toMatchObject({ held: 3, placed: 3 });
        }
      } finally {
        holder.release();
      }
    }
  });

  it('a fence is kept a day after its last raise: raising one removes those older than that', async () => {
    const stale = (await heldOrder()).orderUuid;
    const recent = (await heldOrder()).orderUuid;
    await h.ok(ordersService, FENCED.fence, { orderUuid: stale, fence: '300' });
    await h.ok(ordersService, FENCED.fence, { orderUuid: recent, fence: '301' });
    await h.pool.query(`UPDATE stock.order_fence SET raised_at = now() - interval '25 hours' WHERE order_uuid = $1`, [stale]);
    await h.pool.query(`UPDATE stock.order_fence SET raised_at = now() - interval '23 hours' WHERE order_uuid = $1`, [recent]);

    const { orderUuid } = await heldOrder();
    await h.ok(ordersService, FENCED.fence, { orderUuid, fence: '302' });
    expect({ stale: await fenceOf(stale), recent: await fenceOf(recent), raised: await fenceOf(orderUuid) }).toEqual({ stale: null, recent: '301', raised: '302' });
  });

  it('refuses a token that is not a positive decimal integer, naming the field; only the orders service may fence', async () => {
    const { orderUuid, productUuid } = await heldOrder();
    for (const fence of ['0', '-4', 'abc', '1.5', '9223372036854775808']) {
      expect(await h.problem(ordersService, FENCED.fence, { orderUuid, fence })).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'fence' }] });
      expect(
        await h.problem(ordersService, FENCED.hold, { input: { teamCode: team, orderUuid, lines: [{ lineNumber: 1, productUuid, quantity: 1 }], fence } }),
      ).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'input.fence' }] });
    }
    expect((await h.problem(backOffice(team), FENCED.fence, { orderUuid, fence: '5' })).problemType).toBe('forbidden');
    expect(await fenceOf(orderUuid)).toBeNull();
  });
});
