import { confirmationAddressViolations, parseInstant, reasonViolations, REASON_MAX_LENGTH, validateLines, validateOrderInput, validateShippingDetails } from './order-input';

const line = (sku: string, quantity = 1, lineNumber?: number) => ({ product: { sku }, quantity, ...(lineNumber !== undefined ? { lineNumber } : {}) });
const props = (r: { ok: boolean; violations?: { property: string }[] }) => (r.ok ? [] : r.violations!.map((v) => v.property));

describe('order input (rule O4)', () => {
  it('orderNumber and printTrailOrderNumber: 255 characters accepted, 256 refused naming the field', () => {
    expect(validateOrderInput({ orderNumber: 'o'.repeat(255), printTrailOrderNumber: 'p'.repeat(255), orderLines: [line('A')] }).ok).toBe(true);
    expect(props(validateOrderInput({ orderNumber: 'o'.repeat(256), printTrailOrderNumber: 'p'.repeat(256), orderLines: [line('A')] }))).toEqual([
      'orderNumber',
      'printTrailOrderNumber',
    ]);
    expect(props(validateOrderInput({ orderNumber: '', orderLines: [line('A')] }))).toEqual(['orderNumber']);
  });

  it('500 lines accepted; 501 refused on the count alone', () => {
    const lines = Array.from({ length: 500 }, (_, i) => line(`S${i}`));
    expect(validateLines(lines, { requireLineNumbers: false }).ok).toBe(true);
    const tooMany = [...lines, line('x'.repeat(300), 0)];
    expect(validateLines(tooMany, { requireLineNumbers: false })).toEqual({ ok: false, violations: [{ property: 'orderLines', message: 'At most 500 order lines per request.' }] });
  });

  it('each line: sku 1-255, quantity 1-100000, line numbers positive and unique; named by index', () => {
    const r = validateLines([line('A'), line('B'), line('C'), line('D'), line('E'), line('F'), line('G'), line('x'.repeat(256))], { requireLineNumbers: false });
    expect(props(r)).toEqual(['orderLines[7].product.sku']);
    expect(props(validateLines([line('A', 0), line('B', 100_001), line('C', 1.5)], { requireLineNumbers: false }))).toEqual([
      'orderLines[0].quantity',
      'orderLines[1].quantity',
      'orderLines[2].quantity',
    ]);
    expect(props(validateLines([line('A', 1, 2), line('B', 1, 2), line('C', 1, 0)], { requireLineNumbers: false }))).toEqual(['orderLines[1].lineNumber', 'orderLines[2].lineNumber']);
    expect(props(validateLines([line('A')], { requireLineNumbers: true }))).toEqual(['orderLines[0].lineNumber']);
    expect(props(validateLines([], { requireLineNumbers: false }))).toEqual(['orderLines']);
  });

  it('line numbers default to the position', () => {
    const r = validateLines([line('A'), line('B', 2, 7), line('C')], { requireLineNumbers: false });
    expect(r.ok && r.value.map((l) => l.lineNumber)).toEqual([1, 7, 3]);
  });

  it('a clash with a number given by position says so', () => {
    const r = validateLines([line('A', 1, 2), line('B')], { requireLineNumbers: false });
    expect(r.ok ? [] : r.violations).toEqual([{ property: 'orderLines[1].lineNumber', message: expect.stringMatching(/numbered by its position/) }]);
    const plain = validateLines([line('A', 1, 2), line('B', 1, 2)], { requireLineNumbers: false });
    expect(plain.ok ? [] : plain.violations).toEqual([{ property: 'orderLines[1].lineNumber', message: 'Line number 2 is also used by orderLines[0].' }]);
  });

  it('shipping details: the lengths of section 2, each named', () => {
    const at = (n: number) => 'x'.repeat(n);
    const ok = validateShippingDetails({
      companyName: at(150),
      address1: at(250),
      address2: at(250),
      address3: at(250),
      address4: at(250),
      postalCode: at(25),
      state: { name: at(100), code: at(30) },
      country: { name: at(100), code: 'gb' },
      email: at(100),
      firstName: at(100),
      lastName: at(100),
      city: at(100),
      phone: at(50),
    });
    expect(ok.ok && ok.value?.country).toEqual({ name: at(100), code: 'GB' });
    const bad = validateShippingDetails({
      companyName: at(151),
      address1: at(251),
      address2: at(251),
      address3: at(251),
      address4: at(251),
      postalCode: at(26),
      state: { name: at(101), code: at(31) },
      country: { name: at(101), code: 'GBR' },
      email: at(101),
      firstName: at(101),
      lastName: at(101),
      city: at(101),
      phone: at(51),
    });
    expect(props(bad).sort()).toEqual(
      [
        'shippingDetails.companyName',
        'shippingDetails.address1',
        'shippingDetails.address2',
        'shippingDetails.address3',
        'shippingDetails.address4',
        'shippingDetails.postalCode',
        'shippingDetails.state.name',
        'shippingDetails.state.code',
        'shippingDetails.country.name',
        'shippingDetails.country.code',
        'shippingDetails.email',
        'shippingDetails.firstName',
        'shippingDetails.lastName',
        'shippingDetails.city',
        'shippingDetails.phone',
      ].sort(),
    );
  });

  it('scheduledAt must be an instant with a time zone', () => {
    expect(parseInstant('2026-11-02T09:30:00Z', 'scheduledAt').ok).toBe(true);
    expect(parseInstant('2026-11-02T09:30:00.123+01:00', 'scheduledAt').ok).toBe(true);
    // RFC 3339 bounds no fraction: nanoseconds and beyond are read to the millisecond.
    expect(parseInstant('2026-11-02T09:30:00.1111111111Z', 'updatedSince')).toEqual({ ok: true, value: new Date('2026-11-02T09:30:00.111Z') });
    expect(parseInstant('2026-11-02T09:30:00.999999999999+01:00', 'updatedSince')).toEqual({ ok: true, value: new Date('2026-11-02T08:30:00.999Z') });
    expect(props(parseInstant('2026-11-02 09:30', 'scheduledAt'))).toEqual(['scheduledAt']);
    expect(props(validateOrderInput({ orderNumber: 'x', orderLines: [line('A')], scheduledAt: 'tomorrow' }))).toEqual(['scheduledAt']);
    // On the calendar: no 30 February (the Date parser would roll it on to 2 March), no hour 24.
    for (const bad of ['2027-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-00T00:00:00Z', '2026-11-02T24:00:00Z', '2026-11-02T09:60:00Z', '2026-11-02T09:30:60Z', '2026-11-02T09:30:00+24:00']) {
      expect(props(parseInstant(bad, 'scheduledAt'))).toEqual(['scheduledAt']);
    }
    expect(parseInstant('2028-02-29T23:59:59.999-05:30', 'scheduledAt').ok).toBe(true);
  });

  it('an instant is in years 1 to 9999 in UTC (Postgres has no year 0)', () => {
    expect(parseInstant('0001-01-01T00:00:00Z', 'updatedSince').ok).toBe(true);
    expect(parseInstant('9999-12-31T23:59:59.999Z', 'updatedSince').ok).toBe(true);
    for (const bad of ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00']) {
      expect(parseInstant(bad, 'updatedSince')).toEqual({ ok: false, violations: [{ property: 'updatedSince', message: expect.stringContaining('0001-01-01T00:00:00Z') }] });
    }
  });

  it('a batch prefix names the order inside it', () => {
    expect(props(validateOrderInput({ orderNumber: 'x', orderLines: [line('x'.repeat(256))] }, 'orders[3].'))).toEqual(['orders[3].orderLines[0].product.sku']);
  });

  it('confirming needs address1, city and country code', () => {
    expect(confirmationAddressViolations(null).map((v) => v.property)).toEqual(['shippingDetails.address1', 'shippingDetails.city', 'shippingDetails.country.code']);
    const parsed = validateShippingDetails({ address1: '   ', city: '\t', country: { code: 'GB' } });
    expect(parsed.ok && confirmationAddressViolations(parsed.value).map((v) => v.property)).toEqual(['shippingDetails.address1', 'shippingDetails.city']);
    const whole = validateShippingDetails({ address1: ' 1 High St ', city: 'Leeds', country: { code: 'GB' } });
    expect(whole.ok && confirmationAddressViolations(whole.value)).toEqual([]);
  });

  it('counts characters as code points, as the contract, the edge and Postgres do', () => {
    const v = validateOrderInput({ orderNumber: '\u{1F4E6}'.repeat(255), orderLines: [{ product: { sku: '\u00e9'.repeat(255) }, quantity: 1 }] });
    expect(v.ok).toBe(true);
  });

  it('an empty shipping member is absent, not refused; a country code may be empty too', () => {
    const v = validateShippingDetails({ address1: '1 Park Row', address2: '', companyName: '', state: { name: '', code: '' }, country: { name: 'UK', code: '' } });
    expect(v).toEqual({
      ok: true,
      value: expect.objectContaining({ address1: '1 Park Row', address2: null, companyName: null, state: null, country: { name: 'UK', code: null } }),
    });
  });

  it('a country code is one a country has (either case, Kosovo\'s XK too); UK is told GB', () => {
    const code = (c: string) => validateShippingDetails({ country: { code: c } });
    for (const c of ['GB', 'us', 'Nl', 'XK', 'xk']) expect(code(c)).toMatchObject({ ok: true, value: { country: { code: c.toUpperCase() } } });
    for (const c of ['ZZ', 'XX', 'AA', 'EU', 'G1', 'É1', '\uFB01', '\uFB06']) {
      expect(code(c)).toEqual({ ok: false, violations: [{ property: 'shippingDetails.country.code', message: 'Must be an ISO 3166-1 alpha-2 country code (e.g. GB).' }] });
    }
    expect(code('uk')).toEqual({
      ok: false,
      violations: [{ property: 'shippingDetails.country.code', message: 'UK is not an ISO 3166-1 alpha-2 code: the United Kingdom is GB.' }],
    });
  });

  it('line numbers go up to the column maximum', () => {
    expect(validateLines([{ lineNumber: 2_147_483_647, product: { sku: 'A' }, quantity: 1 }], { requireLineNumbers: true }).ok).toBe(true);
    expect(validateLines([{ lineNumber: 2_147_483_648, product: { sku: 'A' }, quantity: 1 }], { requireLineNumbers: true }).ok).toBe(false);
  });

  it('refuses a NUL character in any text, naming the field', () => {
    const v = validateOrderInput({ orderNumber: 'A\u0000', orderLines: [{ product: { sku: 'S\u0000' }, quantity: 1 }], shippingDetails: { city: 'L\u0000' } });
    expect(v.ok ? [] : v.violations.map((x) => x.property).sort()).toEqual(['orderLines[0].product.sku', 'orderNumber', 'shippingDetails.city']);
  });

  it('refuses an unpaired surrogate in any text (the JSON of its events could not hold it), naming the field', () => {
    const v = validateOrderInput({
      orderNumber: 'A\ud800X',
      printTrailOrderNumber: 'PT-\udc00',
      orderLines: [{ product: { sku: 'S\ud800' }, quantity: 1 }],
      shippingDetails: { city: 'L\udfff', address1: '😀' },
    });
    expect(v.ok ? [] : v.violations.map((x) => x.property).sort()).toEqual(['orderLines[0].product.sku', 'orderNumber', 'printTrailOrderNumber', 'shippingDetails.city']);
  });
});

describe('reasonViolations', () => {
  it('takes no reason or 1 to 500 characters, named as asked', () => {
    expect(reasonViolations(null)).toEqual([]);
    expect(reasonViolations(undefined)).toEqual([]);
    expect(reasonViolations('😀'.repeat(REASON_MAX_LENGTH))).toEqual([]);
    expect(reasonViolations('x'.repeat(REASON_MAX_LENGTH + 1))).toEqual([{ property: 'reason', message: 'At most 500 characters.' }]);
    expect(reasonViolations('', 'input.reason')).toEqual([{ property: 'input.reason', message: expect.any(String) }]);
  });
});
