/**
 * The officially assigned ISO 3166-1 alpha-2 country codes (249), in upper case: what a
 * warehouse's country and a shipping method's countries are.
 */
const ASSIGNED =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

export const COUNTRY_CODES: ReadonlySet<string> = new Set(ASSIGNED.split(' '));

export function isCountryCode(value: string): boolean {
  return COUNTRY_CODES.has(value);
}

/**
 * Kosovo's code: user-assigned in ISO 3166-1, yet what carriers, the EU and most address forms use;
 * refusing it as a destination would refuse real addresses.
 */
const KOSOVO = 'XK';

/**
 * Whether an order may ship to `code`, and a shipping method may serve it: two ASCII letters in
 * either case naming an assigned ISO 3166-1 country, or Kosovo's XK. (`ﬁ`, which upper-cases to
 * FI, is not two letters.)
 */
export function isDestinationCountry(code: string): boolean {
  const upper = twoLettersUpper(code);
  return upper !== null && (isCountryCode(upper) || upper === KOSOVO);
}

/**
 * An assigned ISO 3166-1 alpha-2 code sent in either case, as kept (upper case), or null: two ASCII
 * letters only (`ﬁ` and `ſe` upper-case to FI and SE, and are not codes).
 */
export function assignedCountryCodeOf(code: string): string | null {
  const upper = twoLettersUpper(code);
  return upper !== null && isCountryCode(upper) ? upper : null;
}

function twoLettersUpper(code: string): string | null {
  return /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}
