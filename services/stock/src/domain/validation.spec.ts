import { isCountryCode } from '@pf/platform/countries';
import { feedPage, FEED_MAX_PAGE_SIZE } from './feed';
import { countryCodeViolations, deltaViolations, holdLinesViolations, isHoldId, reasonViolations, warehouseCodeViolations, warehouseCountryCode } from './validation';

const UUID = '2f1c7c4e-8d5b-4a53-9a53-0c2b1d6c7e10';

describe('stock input rules', () => {
  it('a hold id is a positive integer a bigint holds', () => {
    for (const id of ['1', '42', '9223372036854775807']) expect(isHoldId(id)).toBe(true);
    for (const id of ['0', '-1', '01', '1.5', '', ' 1', '9223372036854775808', '9999999999999999999', '10000000000000000000']) expect(isHoldId(id)).toBe(false);
  });

  it('accepts warehouse codes of lowercase letters, digits and inner hyphens, and reserves print-on-demand', () => {
    for (const ok of ['a', 'london', 'wh-2', 'x'.repeat(32)]) expect(warehouseCodeViolations(ok, 'code')).toEqual([]);
    for (const bad of ['', 'London', '-a', 'a-', 'a_b', 'x'.repeat(33)]) expect(warehouseCodeViolations(bad, 'code')).toHaveLength(1);
    expect(warehouseCodeViolations('print-on-demand', 'input.code')).toEqual([{ property: 'input.code', message: expect.stringMatching(/reserved/) }]);
  });

  it('accepts only assigned ISO 3166-1 alpha-2 codes, in either case', () => {
    expect(isCountryCode('GB') && isCountryCode('NL') && isCountryCode('US')).toBe(true);
    for (const bad of ['UK', 'uk', 'XX', 'GBR', '', 'g', '\ufb01', '\u017fe', '\u0131e']) expect(countryCodeViolations(bad, 'countryCode')).toHaveLength(1);
    // Either case, kept in upper case (as orders take a destination).
    for (const good of ['GB', 'gb', 'Nl']) expect(countryCodeViolations(good, 'countryCode')).toEqual([]);
    expect(warehouseCountryCode('nl')).toBe('NL');
  });

  it('requires a reason and a non-zero whole delta', () => {
    expect(reasonViolations('  ', 'reason')).toHaveLength(1);
    expect(reasonViolations('x'.repeat(501), 'reason')).toHaveLength(1);
    expect(reasonViolations('Recount after stocktake', 'reason')).toEqual([]);
    expect(deltaViolations(0, 'delta')).toHaveLength(1);
    expect(deltaViolations(1.5, 'delta')).toHaveLength(1);
    expect(deltaViolations(-3, 'delta')).toEqual([]);
  });

  it('names every bad hold line by its JSON path', () => {
    expect(
      holdLinesViolations(
        [
          { lineNumber: 1, productUuid: UUID, quantity: 1 },
          { lineNumber: 1, productUuid: 'nope', quantity: 0 },
        ],
        'input.lines',
      ).map((v) => v.property),
    ).toEqual(['input.lines[1].lineNumber', 'input.lines[1].productUuid', 'input.lines[1].quantity']);
    expect(holdLinesViolations(Array.from({ length: 1001 }, (_, i) => ({ lineNumber: i, productUuid: UUID, quantity: 1 })), 'input.lines')).toHaveLength(1);
  });

  it('bounds feed pages and checks the cursor', () => {
    expect(feedPage(null, undefined)).toEqual({ after: null, size: 1000 });
    expect(feedPage(UUID.toUpperCase(), FEED_MAX_PAGE_SIZE)).toEqual({ after: UUID, size: 5000 });
    const refused = (after: string | null, first: number) => {
      try {
        feedPage(after, first);
      } catch (err) {
        return (err as { violations: { property: string }[] }).violations.map((v) => v.property);
      }
      return [];
    };
    expect(refused(null, 5001)).toEqual(['first']);
    expect(refused('garbage', 0)).toEqual(['after', 'first']);
  });
});
