import { paginate, pageUrls, pageWindow, type PageFacts } from './pagination';

const path = 'https://api.example.com/v1/channels/acme-shop/products';

describe('pageUrls', () => {
  it('repeats the given parameters in order, percent-encoded, then the page', () => {
    const url = pageUrls(path, [
      ['active-state', 'pre-order'],
      ['per-page', undefined],
      ['q', 'a b&c'],
    ]);
    expect(url(3)).toBe(`${path}?active-state=pre-order&q=a%20b%26c&page=3`);
    expect(pageUrls(path, [])(1)).toBe(`${path}?page=1`);
  });

  it("escapes every reserved character, !'()* included (encodeURIComponent leaves those)", () => {
    expect(pageUrls(path, [['order-number', "PO(2)*O'Brien!"]])(1)).toBe(`${path}?order-number=PO%282%29%2AO%27Brien%21&page=1`);
  });
});

describe('paginate', () => {
  const urlOf = pageUrls(path, [['per-page', 10]]);
  const facts = (page: number, total: number, perPage = 10): PageFacts => {
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const count = Math.max(0, Math.min(perPage, total - (page - 1) * perPage));
    return { page, perPage, total, lastPage, from: count ? (page - 1) * perPage + 1 : null, to: count ? (page - 1) * perPage + count : null };
  };

  it('a middle page links both ways and marks itself active', () => {
    const { links, meta } = paginate(facts(2, 25), path, urlOf);
    expect(links).toEqual({ first: urlOf(1), last: urlOf(3), prev: urlOf(1), next: urlOf(3) });
    expect(meta).toEqual({
      current_page: 2,
      from: 11,
      last_page: 3,
      links: [
        { url: urlOf(1), label: 'Previous', active: false },
        { url: urlOf(1), label: '1', active: false },
        { url: urlOf(2), label: '2', active: true },
        { url: urlOf(3), label: '3', active: false },
        { url: urlOf(3), label: 'Next', active: false },
      ],
      path,
      per_page: 10,
      to: 20,
      total: 25,
    });
  });

  it('the first page has no prev, the last no next', () => {
    expect(paginate(facts(1, 25), path, urlOf).links.prev).toBeNull();
    const last = paginate(facts(3, 25), path, urlOf);
    expect(last.links.next).toBeNull();
    expect(last.meta.links.at(-1)).toEqual({ url: null, label: 'Next', active: false });
    expect(last.meta).toMatchObject({ from: 21, to: 25 });
  });

  it('an empty list is one empty page: from and to null, first = last, no prev or next', () => {
    const { links, meta } = paginate(facts(1, 0), path, urlOf);
    expect(links).toEqual({ first: urlOf(1), last: urlOf(1), prev: null, next: null });
    expect(meta).toMatchObject({ current_page: 1, from: null, to: null, last_page: 1, total: 0 });
    expect(meta.links.map((l) => l.label)).toEqual(['Previous', '1', 'Next']);
  });

  it('a page beyond the last is empty and points back (as Laravel does)', () => {
    const { links, meta } = paginate(facts(7, 25), path, urlOf);
    expect(links).toEqual({ first: urlOf(1), last: urlOf(3), prev: urlOf(6), next: null });
    expect(meta).toMatchObject({ current_page: 7, from: null, to: null, last_page: 3 });
    expect(meta.links.some((l) => l.active)).toBe(false);
  });
});

describe('pageWindow (Laravel UrlWindow, 3 on each side)', () => {
  it('lists every page below 14 pages', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(5, 13)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it('near the start: the first 10 pages, a gap, the last two', () => {
    expect(pageWindow(1, 50)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 49, 50]);
    expect(pageWindow(7, 50)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 49, 50]);
  });

  it('in the middle: the first two, a window of 3 on each side, the last two', () => {
    expect(pageWindow(8, 50)).toEqual([1, 2, null, 5, 6, 7, 8, 9, 10, 11, null, 49, 50]);
    expect(pageWindow(25, 50)).toEqual([1, 2, null, 22, 23, 24, 25, 26, 27, 28, null, 49, 50]);
    expect(pageWindow(43, 50)).toEqual([1, 2, null, 40, 41, 42, 43, 44, 45, 46, null, 49, 50]);
  });

  it('near the end: the first two, a gap, the last 10 pages', () => {
    expect(pageWindow(44, 50)).toEqual([1, 2, null, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
    expect(pageWindow(50, 50)).toEqual([1, 2, null, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
  });
});
