import type { Fulfilment, Order } from './model';
import { NOTHING_TO_REPAIR, stockRepairOf as repairSince, type HoldView } from './stock-repair';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 12, minute));
/** When the interrupted change began (its journal row). */
const SINCE = at(2);
const stockRepairOf = (o: Parameters<typeof repairSince>[0], holds: readonly HoldView[]) => repairSince(o, holds, SINCE);
let ids = 0;
const hold = (lineNumber: number, locationCode: string, quantity: number, status: HoldView['status'], extra: Partial<HoldView> = {}): HoldView => ({
  id: String(++ids),
  lineNumber,
  quantity,
  status,
  locationCode,
  releasedAt: null,
  // Consumed by the interrupted change (it began at SINCE) unless a test says otherwise.
  consumedAt: status === 'CONSUMED' || status === 'RETURNED' ? at(5) : null,
  returnedAt: null,
  ...extra,
});
const lines = [
  { lineNumber: 1, sku: 'A', quantity: 2, productUuid: 'pa' },
  { lineNumber: 2, sku: 'C', quantity: 1, productUuid: 'pc' },
];
const fulfilment = (code: string, status: Fulfilment['status'], fl: [number, number][]): Fulfilment => ({
  uuid: `f-${code}`,
  status,
  supplierLocation: { code, countryCode: 'GB' },
  shippingMethod: null,
  lines: fl.map(([lineNumber, quantity]) => ({ lineNumber, sku: 'x', quantity })),
  trackingDetails: [],
  createdAt: at(0),
  updatedAt: at(0),
});
const order = (stockHeld: boolean, fulfilments: Fulfilment[] = []): Pick<Order, 'stockHeld' | 'lines' | 'fulfilments'> => ({ stockHeld, lines, fulfilments });
const queued = () => order(true, [fulfilment('leeds', 'draft', [[1, 2]]), fulfilment('berlin', 'draft', [[2, 1]])]);

describe('stockRepairOf', () => {
  it('an order that holds nothing, or was never created, keeps no placed hold', () => {
    const placed = [hold(1, 'leeds', 2, 'PLACED')];
    expect(stockRepairOf(order(false), placed)).toEqual({ ...NOTHING_TO_REPAIR, releasePlaced: true });
    expect(stockRepairOf(null, placed)).toEqual({ ...NOTHING_TO_REPAIR, releasePlaced: true });
    expect(stockRepairOf(order(false), [hold(1, 'leeds', 2, 'RELEASED')])).toEqual(NOTHING_TO_REPAIR);
  });

  it('a reserved draft holds each line, wherever; otherwise its lines are held again', () => {
    expect(stockRepairOf(order(true), [hold(1, 'leeds', 2, 'PLACED'), hold(2, 'berlin', 1, 'PLACED')])).toEqual(NOTHING_TO_REPAIR);
    expect(stockRepairOf(order(true), [hold(1, 'leeds', 1, 'PLACED'), hold(1, 'berlin', 1, 'PLACED'), hold(2, 'berlin', 1, 'PLACED')])).toEqual(NOTHING_TO_REPAIR);
    expect(stockRepairOf(order(true), [hold(1, 'leeds', 2, 'PLACED')])).toEqual({ ...NOTHING_TO_REPAIR, releasePlaced: true, holdAgain: true });
    expect(stockRepairOf(order(true), [])).toEqual({ ...NOTHING_TO_REPAIR, holdAgain: true });
  });

  it('draft fulfilments whose holds a lost change released get the latest fitting released holds back', () => {
    const older = hold(1, 'leeds', 2, 'RELEASED', { releasedAt: at(1) });
    const latest = hold(1, 'leeds', 2, 'RELEASED', { releasedAt: at(5) });
    const berlin = hold(2, 'berlin', 1, 'RELEASED', { releasedAt: at(5) });
    expect(stockRepairOf(queued(), [older, latest, berlin])).toEqual({ ...NOTHING_TO_REPAIR, reinstate: [latest.id, berlin.id] });
  });

  it('an amendment lost after stock held its new lines: those are released and the fulfilments\' holds placed again', () => {
    const amended = [hold(1, 'leeds', 7, 'PLACED'), hold(2, 'berlin', 1, 'PLACED')];
    const old = [hold(1, 'leeds', 2, 'RELEASED', { releasedAt: at(3) }), hold(2, 'berlin', 1, 'RELEASED', { releasedAt: at(3) })];
    expect(stockRepairOf(queued(), [...amended, ...old])).toEqual({ ...NOTHING_TO_REPAIR, releasePlaced: true, reinstate: old.map((h) => h.id) });
    // Nothing released fits: the lines are held anew.
    expect(stockRepairOf(queued(), amended)).toEqual({ ...NOTHING_TO_REPAIR, releasePlaced: true, holdAgain: true });
  });

  it('holds consumed at draft locations count as held: a sending whose commit was lost is sent again by its timer, taking nothing twice', () => {
    expect(stockRepairOf(queued(), [hold(1, 'leeds', 2, 'CONSUMED'), hold(2, 'berlin', 1, 'CONSUMED')])).toEqual(NOTHING_TO_REPAIR);
  });

  it('a sent fulfilment whose stock a lost cancellation returned gets the latest returned holds consumed again', () => {
    const sent = order(false, [fulfilment('leeds', 'processing', [[1, 2]]), fulfilment('berlin', 'dispatched', [[2, 1]])]);
    const earlier = hold(1, 'leeds', 2, 'RETURNED', { returnedAt: at(1) });
    const returned = hold(1, 'leeds', 2, 'RETURNED', { returnedAt: at(4) });
    expect(stockRepairOf(sent, [earlier, returned, hold(2, 'berlin', 1, 'CONSUMED')])).toEqual({ ...NOTHING_TO_REPAIR, reconsume: [returned.id] });
    // Consumed there already (an earlier sending's holds came back; these went): nothing.
    expect(stockRepairOf(sent, [earlier, hold(1, 'leeds', 2, 'CONSUMED'), hold(2, 'berlin', 1, 'CONSUMED')])).toEqual(NOTHING_TO_REPAIR);
    // A cancelled fulfilment's returned stock stays returned.
    const cancelled = order(false, [fulfilment('leeds', 'cancelled', [[1, 2]])]);
    expect(stockRepairOf(cancelled, [returned])).toEqual(NOTHING_TO_REPAIR);
  });

  it('holds the interrupted change consumed where no fulfilment is a draft or was sent are placed again first, then count as placed', () => {
    const consumed = [hold(1, 'leeds', 2, 'CONSUMED'), hold(2, 'berlin', 1, 'CONSUMED')];
    const ids = consumed.map((h) => h.id);
    // A draft processed now whose change ended after consuming: placed again, then released (it holds nothing).
    expect(stockRepairOf(order(false), consumed)).toEqual({ ...NOTHING_TO_REPAIR, unconsume: ids, releasePlaced: true });
    expect(stockRepairOf(null, consumed)).toEqual({ ...NOTHING_TO_REPAIR, unconsume: ids, releasePlaced: true });
    // A reserved draft: placed again, and they are its lines' holds: nothing more.
    expect(stockRepairOf(order(true), consumed)).toEqual({ ...NOTHING_TO_REPAIR, unconsume: ids });
    // A cancelled fulfilment's location: placed again and released; a sent one's stays consumed.
    const cancelledOne = order(false, [fulfilment('leeds', 'processing', [[1, 2]]), fulfilment('berlin', 'cancelled', [[2, 1]])]);
    expect(stockRepairOf(cancelledOne, consumed)).toEqual({ ...NOTHING_TO_REPAIR, unconsume: [consumed[1]!.id], releasePlaced: true });
  });

  it('stock consumed before the interrupted change began is not its doing: a failed fulfilment\'s stays consumed, and never counts for a new draft there', () => {
    // The order went back to holding after a fulfilment at leeds failed (its stock stays consumed).
    const failedEarlier = hold(1, 'leeds', 2, 'CONSUMED', { consumedAt: at(1) });
    expect(stockRepairOf(order(false), [failedEarlier])).toEqual(NOTHING_TO_REPAIR);
    // Queued again, a new draft at leeds holds its own placed holds: the old consumed one is not counted.
    const requeued = order(true, [fulfilment('leeds', 'draft', [[1, 2]])]);
    expect(stockRepairOf(requeued, [failedEarlier, hold(1, 'leeds', 2, 'PLACED')])).toEqual(NOTHING_TO_REPAIR);
  });
});
