import {
  backOffice,
  channel,
  CREATE_SHIPPING_METHOD,
  DELETE_SHIPPING_METHOD,
  service,
  SHIPPING_METHOD,
  SHIPPING_METHODS,
  startCatalog,
  UPDATE_SHIPPING_METHOD,
  type CatalogHarness,
} from './harness';

describe('catalog shipping methods over HTTP', () => {
  let h: CatalogHarness;
  const bo = backOffice('ship');

  beforeAll(async () => {
    h = await startCatalog();
    const methods = [
      { code: 'economy-intl', name: 'Economy international', carrier: 'Asendia', serviceLevel: 'economy', priority: 90, minDeliveryDays: 7, maxDeliveryDays: 21 },
      { code: 'standard', name: 'Standard', carrier: 'Royal Mail', countryCodes: ['gb'], priority: 10, minDeliveryDays: 2, maxDeliveryDays: 4 },
      { code: 'tracked-eu', name: 'Tracked EU', carrier: 'DHL', countryCodes: ['FR', 'de', 'NL', 'DE'], tracked: true, priority: 30 },
      { code: 'express', name: 'Express', carrier: 'DPD', countryCodes: ['GB'], serviceLevel: 'express', tracked: true, priority: 20 },
      { code: 'courier', name: 'Courier (paused)', carrier: 'Gophr', countryCodes: ['GB'], active: false, priority: 5 },
    ];
    for (const input of methods) await h.ok(bo, CREATE_SHIPPING_METHOD, { input });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  const codes = (methods: { code: string }[]) => methods.map((m) => m.code);

  it('creates a method with normalised countries and the defaults', async () => {
    const { shippingMethod } = await h.ok(bo, SHIPPING_METHOD, { code: 'tracked-eu' });
    expect(shippingMethod).toMatchObject({
      teamCode: 'ship',
      code: 'tracked-eu',
      name: 'Tracked EU',
      carrier: 'DHL',
      active: true,
      countryCodes: ['DE', 'FR', 'NL'],
      serviceLevel: 'standard',
      tracked: true,
      minDeliveryDays: null,
      maxDeliveryDays: null,
      priority: 30,
      version: 1,
    });
  });

  it('lists active methods in order of preference; the back-office may ask for inactive ones too', async () => {
    expect(codes((await h.ok(channel('ship'), SHIPPING_METHODS, {})).shippingMethods)).toEqual(['standard', 'express', 'tracked-eu', 'economy-intl']);
    expect(codes((await h.ok(bo, SHIPPING_METHODS, {})).shippingMethods)).toEqual(['standard', 'express', 'tracked-eu', 'economy-intl']);
    expect(codes((await h.ok(bo, SHIPPING_METHODS, { includeInactive: true })).shippingMethods)).toEqual([
      'courier',
      'standard',
      'express',
      'tracked-eu',
      'economy-intl',
    ]);
    expect((await h.problem(channel('ship'), SHIPPING_METHODS, { includeInactive: true })).problemType).toBe('forbidden');
  });

  it('filters by destination country (methods without countries serve every country)', async () => {
    const serving = async (countryCode: string) => codes((await h.ok(channel('ship'), SHIPPING_METHODS, { countryCode })).shippingMethods);
    expect(await serving('GB')).toEqual(['standard', 'express', 'economy-intl']);
    expect(await serving('de')).toEqual(['tracked-eu', 'economy-intl']);
    expect(await serving('JP')).toEqual(['economy-intl']);
    expect((await h.problem(channel('ship'), SHIPPING_METHODS, { countryCode: 'GBR' })).violations?.map((v) => v.property)).toEqual(['countryCode']);
  });

  it('an integration does not find an inactive method by code; the back-office does', async () => {
    expect((await h.ok(channel('ship'), SHIPPING_METHOD, { code: 'courier' })).shippingMethod).toBeNull();
    expect((await h.ok(bo, SHIPPING_METHOD, { code: 'courier' })).shippingMethod.active).toBe(false);
  });

  it('service identities (orders at confirmation) read a named team', async () => {
    expect(codes((await h.ok(service(), SHIPPING_METHODS, { teamCode: 'ship', countryCode: 'FR' })).shippingMethods)).toEqual([
      'tracked-eu',
      'economy-intl',
    ]);
    expect((await h.ok(service(), SHIPPING_METHOD, { code: 'express', teamCode: 'ship' })).shippingMethod.code).toBe('express');
    expect((await h.problem(service(), SHIPPING_METHODS, {})).violations?.map((v) => v.property)).toEqual(['teamCode']);
  });

  it('refuses bad input naming each field', async () => {
    const problem = await h.problem(bo, CREATE_SHIPPING_METHOD, {
      input: { code: 'Next Day', name: ' ', carrier: 'DPD', countryCodes: ['GB', 'United Kingdom'], serviceLevel: 'overnight', minDeliveryDays: 3 },
    });
    expect(problem.problemType).toBe('validation-failed');
    expect(problem.violations?.map((v) => v.property)).toEqual([
      'input.code',
      'input.name',
      'input.countryCodes[1]',
      'input.serviceLevel',
      'input.maxDeliveryDays',
    ]);
  });

  it('refuses a live code as a conflict; another team may use it', async () => {
    const problem = await h.problem(bo, CREATE_SHIPPING_METHOD, { input: { code: 'standard', name: 'Again', carrier: 'x' } });
    expect(problem).toMatchObject({ problemType: 'conflict', extensions: { code: 'standard' } });
    const other = await h.ok(backOffice('other'), CREATE_SHIPPING_METHOD, { input: { code: 'standard', name: 'Theirs', carrier: 'x' } });
    expect(other.createShippingMethod).toMatchObject({ teamCode: 'other', code: 'standard', version: 1 });
  });

  it('of two concurrent creates of a new code exactly one wins', async () => {
    const results = await Promise.all(
      [1, 2].map((n) => h.gql(backOffice('shiprace'), CREATE_SHIPPING_METHOD, { input: { code: 'racing', name: `Racer ${n}`, carrier: 'x' } })),
    );
    expect(results.filter((r) => r.data?.createShippingMethod).length).toBe(1);
    expect(results.filter((r) => r.errors?.[0]?.extensions?.problem?.problemType === 'conflict').length).toBe(1);
  });

  it('updates only the fields given, with a new version; nothing changed keeps it', async () => {
    const { updateShippingMethod } = await h.ok(bo, UPDATE_SHIPPING_METHOD, {
      code: 'express',
      input: { name: 'Express 24h', countryCodes: ['GB', 'IE'], minDeliveryDays: 1, maxDeliveryDays: 1 },
    });
    expect(updateShippingMethod).toMatchObject({ name: 'Express 24h', carrier: 'DPD', countryCodes: ['GB', 'IE'], minDeliveryDays: 1, version: 2 });
    const same = await h.ok(bo, UPDATE_SHIPPING_METHOD, { code: 'express', input: { name: 'Express 24h', countryCodes: ['ie', 'gb'] } });
    expect(same.updateShippingMethod).toEqual(updateShippingMethod);
    const bad = await h.problem(bo, UPDATE_SHIPPING_METHOD, { code: 'express', input: { maxDeliveryDays: 0, priority: 10001 } });
    expect(bad.violations?.map((v) => v.property)).toEqual(['input.maxDeliveryDays', 'input.priority']);
  });

  it('deactivating hides a method from integrations', async () => {
    await h.ok(bo, UPDATE_SHIPPING_METHOD, { code: 'tracked-eu', input: { active: false } });
    expect(codes((await h.ok(channel('ship'), SHIPPING_METHODS, { countryCode: 'FR' })).shippingMethods)).toEqual(['economy-intl']);
    await h.ok(bo, UPDATE_SHIPPING_METHOD, { code: 'tracked-eu', input: { active: true } });
  });

  it('deletes softly; re-creating the code revives it with a growing version', async () => {
    await h.ok(bo, CREATE_SHIPPING_METHOD, { input: { code: 'seasonal', name: 'Seasonal', carrier: 'Evri' } });
    const { deleteShippingMethod } = await h.ok(bo, DELETE_SHIPPING_METHOD, { code: 'seasonal' });
    expect(deleteShippingMethod).toMatchObject({ code: 'seasonal', version: 2 });
    expect((await h.ok(bo, SHIPPING_METHOD, { code: 'seasonal' })).shippingMethod).toBeNull();
    expect(codes((await h.ok(bo, SHIPPING_METHODS, { includeInactive: true })).shippingMethods)).not.toContain('seasonal');
    expect((await h.problem(bo, DELETE_SHIPPING_METHOD, { code: 'seasonal' })).problemType).toBe('not-found');
    expect((await h.problem(bo, UPDATE_SHIPPING_METHOD, { code: 'seasonal', input: { name: 'x' } })).problemType).toBe('not-found');
    const { createShippingMethod } = await h.ok(bo, CREATE_SHIPPING_METHOD, {
      input: { code: 'seasonal', name: 'Seasonal again', carrier: 'Yodel', countryCodes: ['GB'] },
    });
    expect(createShippingMethod).toMatchObject({ name: 'Seasonal again', carrier: 'Yodel', countryCodes: ['GB'], active: true, version: 3 });
  });
});
