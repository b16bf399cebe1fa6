import { assignedCountryCodeOf, COUNTRY_CODES, isCountryCode, isDestinationCountry } from './countries';

describe('countries', () => {
  it('lists the 249 assigned ISO 3166-1 alpha-2 codes, upper case', () => {
    expect(COUNTRY_CODES.size).toBe(249);
    expect(isCountryCode('GB')).toBe(true);
    expect(isCountryCode('gb')).toBe(false);
    expect(isCountryCode('UK')).toBe(false);
    expect(isCountryCode('XK')).toBe(false);
  });

  it('a destination is an assigned code in either case, or Kosovo\'s XK; nothing else', () => {
    for (const code of ['GB', 'gb', 'Us', 'XK', 'xk']) expect(isDestinationCountry(code)).toBe(true);
    // U+FB01 and U+FB06 upper-case to FI and ST: not two letters.
    for (const code of ['UK', 'ZZ', 'EU', '', 'G', 'GBR', 'G1', '\uFB01', '\uFB06', 'ＧＢ']) expect(isDestinationCountry(code)).toBe(false);
  });

  it('an assigned code in either case reads as kept (upper case); anything else, Kosovo and look-alikes included, as none', () => {
    expect(['GB', 'gb', 'Nl'].map(assignedCountryCodeOf)).toEqual(['GB', 'GB', 'NL']);
    for (const code of ['UK', 'XK', '', 'G', 'GBR', '\uFB01', '\u017Fe', '\u0131e', 'ＧＢ']) expect(assignedCountryCodeOf(code)).toBeNull();
  });
});
