import { queryParser } from './query';

describe('the query parser', () => {
  const parse = queryParser(['updated-since', 'updatedSince']);

  it('reads an offset written with a raw + in a timestamp parameter as +', () => {
    expect(parse('updated-since=2026-11-26T18:56:00+00:00')).toEqual({ 'updated-since': '2026-11-26T18:56:00+00:00' });
    expect(parse('updatedSince=2026-11-26T18:56+0100&updatedSince=2026-11-26T18:56:00.5+01')).toEqual({
      updatedSince: ['2026-11-26T18:56+0100', '2026-11-26T18:56:00.5+01'],
    });
    expect(parse('updated-since=2026-11-26T18:56:00%2B00:00')).toEqual({ 'updated-since': '2026-11-26T18:56:00+00:00' });
  });

  it('form-decodes everything else: a + elsewhere is a space', () => {
    expect(parse('order-number=a+b%2Bc&created-since=2026-11-26T18:56:00+00:00')).toEqual({ 'order-number': 'a b+c', 'created-since': '2026-11-26T18:56:00 00:00' });
    expect(parse('updated-since=not+a+time')).toEqual({ 'updated-since': 'not a time' });
  });

  it('keeps every parameter, not only the first 1000 (a filter after them would go unapplied and unrefused)', () => {
    const junk = Array.from({ length: 1000 }, (_, i) => `x${i}=1`).join('&');
    const parsed = parse(`${junk}&status=queued`);
    expect(Object.keys(parsed)).toHaveLength(1001);
    expect(parsed.status).toBe('queued');
  });
});
