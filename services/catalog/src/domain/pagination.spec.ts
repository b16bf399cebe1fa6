import {
  cursorPageRequest,
  decodeCursor,
  encodeCursor,
  FIRST_MAX,
  isUuid,
  numberedPageRequest,
  pageFacts,
  pageOffset,
  PER_PAGE_MAX,
  trimProbe,
} from './pagination';

const uuid = '0b9e3c52-8a3c-4c4e-9a51-2f7f0cf0d1a2';

describe('cursors', () => {
  it('round-trip creation time and uuid', () => {
    const cursor = { createdAt: new Date('2026-10-20T08:30:00.123Z'), uuid };
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it.each([
    'not-a-cursor!',
    '',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('["2026-10-20T08:30:00.123Z"]').toString('base64url'),
    Buffer.from('["yesterday","0b9e3c52-8a3c-4c4e-9a51-2f7f0cf0d1a2"]').toString('base64url'),
    Buffer.from('["2026-10-20T08:30:00.123Z","not-a-uuid"]').toString('base64url'),
    Buffer.from('["2026-10-20","0b9e3c52-8a3c-4c4e-9a51-2f7f0cf0d1a2"]').toString('base64url'),
  ])('rejects %j', (text) => {
    expect(decodeCursor(text)).toBeUndefined();
  });
});

describe('cursor page requests', () => {
  it('default to 20 from the start', () => {
    expect(cursorPageRequest(undefined, undefined)).toEqual({ request: { first: 20, after: null }, violations: [] });
  });

  it(`bound first to 1..${FIRST_MAX} and name the bad argument`, () => {
    expect(cursorPageRequest(FIRST_MAX, null).request?.first).toBe(FIRST_MAX);
    expect(cursorPageRequest(0, null).violations.map((v) => v.property)).toEqual(['first']);
    expect(cursorPageRequest(FIRST_MAX + 1, null).violations.map((v) => v.property)).toEqual(['first']);
    expect(cursorPageRequest(101, 'junk').violations.map((v) => v.property)).toEqual(['first', 'after']);
  });
});

describe('numbered pages', () => {
  it('default to page 1 of 15', () => {
    expect(numberedPageRequest(null, null)).toEqual({ request: { page: 1, perPage: 15 }, violations: [] });
  });

  it(`bound page to at least 1 and perPage to 1..${PER_PAGE_MAX}`, () => {
    expect(numberedPageRequest(0, 10).violations.map((v) => v.property)).toEqual(['page']);
    expect(numberedPageRequest(1, 0).violations.map((v) => v.property)).toEqual(['perPage']);
    expect(numberedPageRequest(-3, PER_PAGE_MAX + 1).violations.map((v) => v.property)).toEqual(['page', 'perPage']);
    expect(numberedPageRequest(2, PER_PAGE_MAX).request).toEqual({ page: 2, perPage: PER_PAGE_MAX });
  });

  it('skip the rows of the earlier pages', () => {
    expect(pageOffset(1, 15)).toBe(0);
    expect(pageOffset(3, 15)).toBe(30);
  });

  it.each([
    // page, perPage, total, itemsOnPage -> lastPage, from, to
    [1, 15, 0, 0, 1, null, null],
    [1, 15, 7, 7, 1, 1, 7],
    [1, 15, 15, 15, 1, 1, 15],
    [1, 15, 16, 15, 2, 1, 15],
    [2, 15, 16, 1, 2, 16, 16],
    [3, 15, 16, 0, 2, null, null],
    [4, 10, 100, 10, 10, 31, 40],
    [10, 10, 100, 10, 10, 91, 100],
  ])('page %i of %i with %i in all (%i here): last %i, from %p to %p', (page, perPage, total, items, lastPage, from, to) => {
    expect(pageFacts(page, perPage, total, items)).toEqual({ page, perPage, total, lastPage, from, to });
  });
});

describe('probe row', () => {
  it('tells whether more rows follow without returning the probe', () => {
    expect(trimProbe([1, 2, 3], 2)).toEqual({ items: [1, 2], hasNextPage: true });
    expect(trimProbe([1, 2], 2)).toEqual({ items: [1, 2], hasNextPage: false });
    expect(trimProbe([], 2)).toEqual({ items: [], hasNextPage: false });
  });
});

describe('uuids', () => {
  it('accepts the textual form in either case and nothing else', () => {
    expect(isUuid(uuid)).toBe(true);
    expect(isUuid(uuid.toUpperCase())).toBe(true);
    for (const bad of ['', 'abc', `${uuid}0`, uuid.replace(/-/g, ''), "' OR 1=1 --"]) expect(isUuid(bad)).toBe(false);
  });
});
