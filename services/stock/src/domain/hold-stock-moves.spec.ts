import { consumption, giveBack, holdMoveTimes, holdsAt, levelKey, reinstatableHolds, reinstatement, reinstatementShortages, release, restoration, restorationDeltas, returnableHolds, takeAgain, unconsumption } from './hold-stock-moves';
import { printOnDemandLocation, warehouseLocation, type StockHold } from './model';

const P = '00000000-0000-4000-8000-000000000001';
const Q = '00000000-0000-4000-8000-000000000002';
const A = 'aaaaaaaa-0000-4000-8000-000000000000';
const B = 'bbbbbbbb-0000-4000-8000-000000000000';
const codeOf: Record<string, string> = { [A]: 'a', [B]: 'b' };

let nextId = 1;
function hold(h: Partial<StockHold> & Pick<StockHold, 'productUuid' | 'warehouseId' | 'quantity'>): StockHold {
  return {
    id: String(nextId++),
    teamCode: 't',
    orderUuid: 'order',
    lineNumber: 1,
    sku: null,
    location: h.warehouseId ? warehouseLocation({ code: codeOf[h.warehouseId]!, countryCode: 'GB' }) : printOnDemandLocation('GB'),
    status: 'placed',
    taken: 0,
    placedAt: new Date(0),
    releasedAt: null,
    consumedAt: null,
    returnedAt: null,
    ...h,
  };
}

const onHand = (entries: [string, string, number][]) => new Map(entries.map(([p, w, n]) => [levelKey(p, w), n]));

describe('consuming placed holds', () => {
  it('takes each hold off hand and off held, per stock row, in product then warehouse order', () => {
    const holds = [
      hold({ productUuid: Q, warehouseId: A, quantity: 2 }),
      hold({ productUuid: P, warehouseId: B, quantity: 3 }),
      hold({ productUuid: P, warehouseId: A, quantity: 1, lineNumber: 2 }),
    ];
    const plan = consumption(holds, onHand([[P, A, 10], [P, B, 3], [Q, A, 5]]));
    expect(plan.deltas).toEqual([
      { productUuid: P, warehouseId: A, held: -1, onHand: -1 },
      { productUuid: P, warehouseId: B, held: -3, onHand: -3 },
      { productUuid: Q, warehouseId: A, held: -2, onHand: -2 },
    ]);
    expect(plan.moves.map((m) => [m.hold.id, m.delta, m.onHandAfter, m.taken])).toEqual([
      [holds[0]!.id, -2, 3, 2],
      [holds[1]!.id, -3, 0, 3],
      [holds[2]!.id, -1, 9, 1],
    ]);
  });

  it('never takes more than is on hand: a count below what orders held leaves less to take (two lines sharing a row)', () => {
    const holds = [hold({ productUuid: P, warehouseId: A, quantity: 3 }), hold({ productUuid: P, warehouseId: A, quantity: 3, lineNumber: 2 })];
    const plan = consumption(holds, onHand([[P, A, 4]]));
    expect(plan.deltas).toEqual([{ productUuid: P, warehouseId: A, held: -6, onHand: -4 }]);
    expect(plan.moves.map((m) => [m.delta, m.onHandAfter, m.taken])).toEqual([
      [-3, 1, 3],
      [-1, 0, 1],
    ]);
    // Nothing left: a 0 move (never -0).
    const empty = consumption([hold({ productUuid: P, warehouseId: A, quantity: 2 })], onHand([[P, A, 0]]));
    expect(Object.is(empty.moves[0]!.delta, 0)).toBe(true);
    expect(empty.moves[0]!.taken).toBe(0);
  });

  it('print on demand moves no stock', () => {
    expect(consumption([hold({ productUuid: P, warehouseId: null, quantity: 500 })], new Map())).toEqual({ deltas: [], moves: [] });
  });
});

describe('releasing placed holds', () => {
  it('lowers held only', () => {
    expect(release([hold({ productUuid: P, warehouseId: A, quantity: 2 }), hold({ productUuid: P, warehouseId: null, quantity: 9 })])).toEqual([
      { productUuid: P, warehouseId: A, held: -2, onHand: 0 },
    ]);
  });

  it('selects the placed holds at the given supplier locations (all when none are given)', () => {
    const atA = hold({ productUuid: P, warehouseId: A, quantity: 2 });
    const atB = hold({ productUuid: P, warehouseId: B, quantity: 1, lineNumber: 2 });
    const pod = hold({ productUuid: Q, warehouseId: null, quantity: 5, lineNumber: 3 });
    const released = hold({ productUuid: Q, warehouseId: A, quantity: 1, status: 'released', releasedAt: new Date(1) });
    const all = [atA, atB, pod, released];
    expect(holdsAt(all, 'placed', ['a'])).toEqual([atA]);
    expect(holdsAt(all, 'placed', ['b', 'print-on-demand'])).toEqual([atB, pod]);
    expect(holdsAt(all, 'placed', null)).toEqual([atA, atB, pod]);
    expect(holdsAt(all, 'placed', [])).toEqual([]);
  });
});

describe('reinstating released holds (a release undone)', () => {
  const releasedAt = new Date(1);
  const released = (h: Parameters<typeof hold>[0]) => hold({ status: 'released', releasedAt, ...h });

  it('places again the named released holds of the order; placed, consumed and unnamed ones are left alone', () => {
    const atA = released({ productUuid: P, warehouseId: A, quantity: 2 });
    const atB = released({ productUuid: P, warehouseId: B, quantity: 1 });
    const pod = released({ productUuid: Q, warehouseId: null, quantity: 3, lineNumber: 2 });
    const placed = hold({ productUuid: Q, warehouseId: A, quantity: 1, lineNumber: 3 });
    const consumed = hold({ productUuid: Q, warehouseId: B, quantity: 1, lineNumber: 4, status: 'consumed', consumedAt: releasedAt });
    const all = [atA, atB, pod, placed, consumed];
    const ids = (...hs: StockHold[]) => new Set(hs.map((h) => h.id));
    expect(reinstatableHolds(all, ids(atA, pod, placed, consumed))).toEqual([atA, pod]);
    expect(reinstatableHolds(all, ids())).toEqual([]);
  });

  it('not a line the order holds again at that location by now (holding twice); the same line elsewhere does not matter', () => {
    const old = released({ productUuid: P, warehouseId: A, quantity: 2 });
    const elsewhere = released({ productUuid: P, warehouseId: B, quantity: 1 });
    const again = hold({ productUuid: P, warehouseId: A, quantity: 2 });
    expect(reinstatableHolds([old, elsewhere, again], new Set([old.id, elsewhere.id]))).toEqual([elsewhere]);
  });

  it('raises held by what releasing lowered it, on hand untouched; print on demand moves nothing', () => {
    const holds = [
      released({ productUuid: P, warehouseId: A, quantity: 2 }),
      released({ productUuid: P, warehouseId: A, quantity: 3, lineNumber: 2 }),
      released({ productUuid: Q, warehouseId: null, quantity: 9 }),
    ];
    expect(reinstatement(holds)).toEqual([{ productUuid: P, warehouseId: A, held: 5, onHand: 0 }]);
    const placed = holds.map((h) => ({ ...h, status: 'placed' as const }));
    expect(release(placed).map((d) => d.held)).toEqual(reinstatement(holds).map((d) => -d.held));
  });

  it('only while their warehouses can still sell them: stock sold since the release is not held twice', () => {
    const warehouse = (id: string) => ({ id, teamCode: 't', code: codeOf[id]!, name: id, countryCode: 'GB', enabled: true, createdAt: new Date(0), updatedAt: new Date(0) });
    const level = (productUuid: string, id: string, onHand: number, held: number) => ({ productUuid, warehouse: warehouse(id), onHand, held });
    const holds = [
      released({ productUuid: P, warehouseId: A, quantity: 2, sku: 'P' }),
      released({ productUuid: P, warehouseId: A, quantity: 3, lineNumber: 2, sku: 'P' }),
      released({ productUuid: P, warehouseId: B, quantity: 1, lineNumber: 3, sku: 'P' }),
      released({ productUuid: Q, warehouseId: A, quantity: 4, lineNumber: 4, sku: 'Q' }),
      released({ productUuid: Q, warehouseId: null, quantity: 50, lineNumber: 5, sku: 'Q' }),
    ];
    // P: 5 wanted at A where 10 on hand less 5 held leave 5, 1 at B where 1 is left: fits exactly.
    expect(reinstatementShortages(holds, [level(P, A, 10, 5), level(P, B, 3, 2), level(Q, A, 4, 0)])).toEqual([]);
    // Sold meanwhile: one unit of P at A, and all of Q at A (print on demand takes none).
    expect(reinstatementShortages(holds, [level(P, A, 10, 6), level(P, B, 3, 2), level(Q, A, 4, 4)])).toEqual([
      { productUuid: P, sku: 'P', requested: 6, available: 5 },
      { productUuid: Q, sku: 'Q', requested: 4, available: 0 },
    ]);
    // A stock row that is gone has nothing to sell; a count below what is held, nothing either.
    expect(reinstatementShortages(holds.slice(0, 1), [level(P, A, 1, 3)])).toEqual([{ productUuid: P, sku: 'P', requested: 2, available: 0 }]);
    expect(reinstatementShortages(holds.slice(3, 4), [])).toEqual([{ productUuid: Q, sku: 'Q', requested: 4, available: 0 }]);
  });
});

describe('restoring the holds an order had before a hold change that did not commit', () => {
  const releasedAt = new Date(1);
  const ids = (...hs: StockHold[]) => new Set(hs.map((h) => h.id));

  it('releases the placed holds not named and places the named released ones again', () => {
    // Before: line 1 at A (released by the change), line 2 at B (kept); the change placed line 1 at B.
    const oldAtA = hold({ productUuid: P, warehouseId: A, quantity: 3, status: 'released', releasedAt });
    const kept = hold({ productUuid: Q, warehouseId: B, quantity: 1, lineNumber: 2 });
    const newAtB = hold({ productUuid: P, warehouseId: B, quantity: 8 });
    const consumed = hold({ productUuid: Q, warehouseId: A, quantity: 1, lineNumber: 3, status: 'consumed', consumedAt: releasedAt });
    expect(restoration([oldAtA, kept, newAtB, consumed], ids(oldAtA, kept, consumed))).toEqual({ release: [newAtB], reinstate: [oldAtA] });
  });

  it('a hold placed by the change at the old location is released first, so the old one comes back (the same line, the same warehouse)', () => {
    const old = hold({ productUuid: P, warehouseId: A, quantity: 3, status: 'released', releasedAt });
    const larger = hold({ productUuid: P, warehouseId: A, quantity: 5 });
    expect(restoration([old, larger], ids(old))).toEqual({ release: [larger], reinstate: [old] });
  });

  it('nothing named: every placed hold is released (the order held nothing before)', () => {
    const a = hold({ productUuid: P, warehouseId: A, quantity: 3 });
    const pod = hold({ productUuid: Q, warehouseId: null, quantity: 2, lineNumber: 2 });
    expect(restoration([a, pod], ids())).toEqual({ release: [a, pod], reinstate: [] });
  });

  it("moves held once per stock row: released ones down, reinstated ones up, a row that ends where it was left alone", () => {
    const outA = hold({ productUuid: P, warehouseId: A, quantity: 5 });
    const backA = hold({ productUuid: P, warehouseId: A, quantity: 5, status: 'released', releasedAt });
    const outB = hold({ productUuid: P, warehouseId: B, quantity: 8 });
    const backQ = hold({ productUuid: Q, warehouseId: A, quantity: 2, status: 'released', releasedAt });
    const pod = hold({ productUuid: Q, warehouseId: null, quantity: 9 });
    expect(restorationDeltas({ release: [outB, outA, pod], reinstate: [backA, backQ] })).toEqual([
      { productUuid: P, warehouseId: B, held: -8, onHand: 0 },
      { productUuid: Q, warehouseId: A, held: 2, onHand: 0 },
    ]);
  });

  it('restoring what is already there changes nothing (undoing twice)', () => {
    const a = hold({ productUuid: P, warehouseId: A, quantity: 3 });
    const gone = hold({ productUuid: P, warehouseId: B, quantity: 3, status: 'released', releasedAt });
    expect(restoration([a, gone], ids(a))).toEqual({ release: [], reinstate: [] });
  });
});

describe('returning consumed holds', () => {
  const consumedAt = new Date(1);
  const sent = (h: Parameters<typeof hold>[0] & { taken: number }) => hold({ status: 'consumed', consumedAt, ...h });

  it('selects the consumed warehouse holds at the given locations (all when none are given); print on demand has nothing to return', () => {
    const atA = sent({ productUuid: P, warehouseId: A, quantity: 2, taken: 2 });
    const atB = sent({ productUuid: P, warehouseId: B, quantity: 1, taken: 1 });
    const pod = sent({ productUuid: Q, warehouseId: null, quantity: 5, taken: 0 });
    const placed = hold({ productUuid: Q, warehouseId: A, quantity: 1 });
    const returned = hold({ productUuid: Q, warehouseId: A, quantity: 1, status: 'returned', taken: 1, consumedAt, returnedAt: consumedAt });
    const all = [atA, atB, pod, placed, returned];
    expect(returnableHolds(all, ['a'])).toEqual([atA]);
    expect(returnableHolds(all, ['b', 'print-on-demand'])).toEqual([atB]);
    expect(returnableHolds(all, null)).toEqual([atA, atB]);
    expect(returnableHolds(all, [])).toEqual([]);
    expect(holdsAt(all, 'returned')).toEqual([returned]);
  });

  it('gives back exactly what each took, held untouched', () => {
    const holds = [
      sent({ productUuid: P, warehouseId: A, quantity: 3, taken: 3 }),
      sent({ productUuid: P, warehouseId: A, quantity: 3, taken: 1, lineNumber: 2 }),
      sent({ productUuid: Q, warehouseId: B, quantity: 2, taken: 0 }),
    ];
    const plan = giveBack(holds, onHand([[P, A, 5], [Q, B, 0]]));
    expect(plan.deltas).toEqual([
      { productUuid: P, warehouseId: A, held: 0, onHand: 4 },
      { productUuid: Q, warehouseId: B, held: 0, onHand: 0 },
    ]);
    expect(plan.moves.map((m) => [m.delta, m.onHandAfter, m.taken])).toEqual([
      [3, 8, 3],
      [1, 9, 1],
      [0, 0, 0],
    ]);
  });

  it('a return undone takes again what came back, as far as it is still there', () => {
    const holds = [
      hold({ productUuid: P, warehouseId: A, quantity: 3, status: 'returned', taken: 3 }),
      hold({ productUuid: P, warehouseId: A, quantity: 2, status: 'returned', taken: 2, lineNumber: 2 }),
    ];
    // Someone counted 4 meanwhile: the second line finds 1.
    const plan = takeAgain(holds, onHand([[P, A, 4]]));
    expect(plan.deltas).toEqual([{ productUuid: P, warehouseId: A, held: 0, onHand: -4 }]);
    expect(plan.moves.map((m) => [m.delta, m.onHandAfter, m.taken])).toEqual([
      [-3, 1, 3],
      [-1, 0, 1],
    ]);
  });

  it('consume, return, undo: on hand ends where consuming left it', () => {
    const placed = [hold({ productUuid: P, warehouseId: A, quantity: 4 })];
    const start = 10;
    const c = consumption(placed, onHand([[P, A, start]]));
    const afterConsume = start + c.deltas[0]!.onHand;
    const consumed = placed.map((h, i) => ({ ...h, status: 'consumed' as const, taken: c.moves[i]!.taken }));
    const r = giveBack(consumed, onHand([[P, A, afterConsume]]));
    const afterReturn = afterConsume + r.deltas[0]!.onHand;
    expect(afterReturn).toBe(start);
    const returned = consumed.map((h) => ({ ...h, status: 'returned' as const }));
    const u = takeAgain(returned, onHand([[P, A, afterReturn]]));
    expect(afterReturn + u.deltas[0]!.onHand).toBe(afterConsume);
  });

  it('a sending undone places the holds again: held up by each quantity, on hand up by what each took, free stock as before', () => {
    const placed = [
      hold({ productUuid: P, warehouseId: A, quantity: 4 }),
      hold({ productUuid: P, warehouseId: A, quantity: 3 }),
      hold({ productUuid: Q, warehouseId: B, quantity: 2 }),
      hold({ productUuid: Q, warehouseId: null, quantity: 5, location: printOnDemandLocation('GB') }),
    ];
    // P@A: 10 on hand, 7 held (these two); Q@B: 1 on hand (a count set lower), 2 held.
    const before = onHand([[P, A, 10], [Q, B, 1]]);
    const c = consumption(placed, before);
    const consumed = placed.map((h, i) => ({ ...h, status: 'consumed' as const, taken: c.moves.find((m) => m.hold.id === h.id)?.taken ?? 0 }));
    const afterConsume = onHand([[P, A, 10 + c.deltas[0]!.onHand], [Q, B, 1 + c.deltas[1]!.onHand]]);
    const u = unconsumption(consumed, afterConsume);
    expect(u.deltas).toEqual([
      { productUuid: P, warehouseId: A, held: 7, onHand: 7 },
      { productUuid: Q, warehouseId: B, held: 2, onHand: 1 },
    ]);
    for (const [i, d] of u.deltas.entries()) {
      expect(d.held).toBe(-c.deltas[i]!.held);
      expect(d.onHand).toBe(-c.deltas[i]!.onHand);
    }
    // Each move gives back what its hold took and leaves it having taken nothing (placed).
    expect(u.moves.map((m) => [m.delta, m.taken])).toEqual([
      [4, 0],
      [3, 0],
      [1, 0],
    ]);
  });

  it('each move sets the times it means: consumed when the stock left, returned when it came back, cleared when undone', () => {
    const at = new Date('2026-11-27T08:00:00Z');
    expect(holdMoveTimes({ from: 'placed', to: 'consumed' }, at)).toEqual({ consumedAt: at });
    expect(holdMoveTimes({ from: 'consumed', to: 'returned' }, at)).toEqual({ returnedAt: at });
    expect(holdMoveTimes({ from: 'returned', to: 'consumed' }, at)).toEqual({ consumedAt: at, returnedAt: null });
    expect(holdMoveTimes({ from: 'consumed', to: 'placed' }, at)).toEqual({ consumedAt: null });
  });
});
