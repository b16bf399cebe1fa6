import { COUNTRY_CODES, isCountryCode, isDestinationCountry } from './countries';

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
});
