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
});
