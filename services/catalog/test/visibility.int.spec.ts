import type { Identity } from '@pf/platform/identity';
import {
  backOffice,
  channel,
  createProduct,
  CREATE_SHIPPING_METHOD,
  DELETE_PRODUCT,
  DELETE_SHIPPING_METHOD,
  ENTITIES,
  PRODUCT,
  PRODUCT_PAGE,
  PRODUCTS,
  service,
  SHIPPING_METHOD,
  SHIPPING_METHODS,
  startCatalog,
  UPDATE_PRODUCT,
  UPDATE_SHIPPING_METHOD,
  VALIDATE_SKUS,
  type CatalogHarness,
} from './harness';

/**
 * Another team's products and shipping methods, and deleted products, must be invisible on every
 * field, for integrations (channel identities) and for merchants (back-office identities) alike:
 * reads answer as if they did not exist, changes with the same not-found as a uuid nobody has.
 */
describe('catalog visibility', () => {
  let h: CatalogHarness;
  let theirs: Record<string, any>;
  let mine: Record<string, any>;
  let deleted: Record<string, any>;
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    h = await startCatalog();
    theirs = await createProduct(h, 'beta', { sku: 'SHARED-SKU', name: 'Beta product' });
    await createProduct(h, 'beta', { sku: 'BETA-ONLY', name: 'Beta only' });
    mine = await createProduct(h, 'alpha', { sku: 'ALPHA-1', name: 'Alpha product' });
    deleted = await createProduct(h, 'alpha', { sku: 'ALPHA-GONE', name: 'Alpha deleted', podEnabled: true, podApproved: true });
    await h.ok(backOffice('alpha'), DELETE_PRODUCT, { uuid: deleted.uuid });
    await h.ok(backOffice('beta'), CREATE_SHIPPING_METHOD, { input: { code: 'beta-post', name: 'Beta post', carrier: 'Post' } });
    await h.ok(backOffice('alpha'), CREATE_SHIPPING_METHOD, { input: { code: 'alpha-post', name: 'Alpha post', carrier: 'Post' } });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  const alphaReaders: [string, Identity][] = [
    ['channel', channel('alpha')],
    ['back-office', backOffice('alpha')],
  ];

  describe.each(alphaReaders)('for a %s identity of another team', (_kind, who) => {
    it('product(uuid) is null, like an unknown or malformed uuid', async () => {
      for (const uuid of [theirs.uuid, UNKNOWN, 'not-a-uuid', deleted.uuid]) {
        expect(await h.ok(who, PRODUCT, { uuid })).toEqual({ product: null });
      }
      expect((await h.ok(who, PRODUCT, { uuid: mine.uuid })).product.uuid).toBe(mine.uuid);
    });

    it('lists and pages show only their own live products', async () => {
      const { products } = await h.ok(who, PRODUCTS, { first: 100 });
      expect(products.edges.map((e: any) => e.node.uuid)).toEqual([mine.uuid]);
      expect(products.totalCount).toBe(1);
      const { productPage } = await h.ok(who, PRODUCT_PAGE, { perPage: 100 });
      expect(productPage.items.map((p: any) => p.uuid)).toEqual([mine.uuid]);
      expect(productPage.total).toBe(1);
      for (const filter of [{ sku: 'SHARED-SKU' }, { search: 'beta' }, { sku: 'ALPHA-GONE' }]) {
        expect((await h.ok(who, PRODUCTS, { filter })).products).toMatchObject({ edges: [], totalCount: 0 });
      }
    });

    it('naming the other team explicitly gives nothing', async () => {
      expect((await h.ok(who, PRODUCTS, { teamCode: 'beta' })).products).toMatchObject({ edges: [], totalCount: 0 });
      expect((await h.ok(who, PRODUCT_PAGE, { teamCode: 'beta' })).productPage).toMatchObject({ items: [], total: 0 });
      expect((await h.ok(who, VALIDATE_SKUS, { skus: ['BETA-ONLY'], teamCode: 'beta' })).validateSkus).toEqual([
        { sku: 'BETA-ONLY', matched: false, productUuid: null, activeState: null },
      ]);
      expect((await h.ok(who, SHIPPING_METHODS, { teamCode: 'beta' })).shippingMethods).toEqual([]);
      expect((await h.ok(who, SHIPPING_METHOD, { code: 'beta-post', teamCode: 'beta' })).shippingMethod).toBeNull();
    });

    it("validateSkus matches none of the other team's SKUs and no deleted product", async () => {
      const { validateSkus } = await h.ok(who, VALIDATE_SKUS, { skus: ['BETA-ONLY', 'SHARED-SKU', 'ALPHA-GONE', 'ALPHA-1'] });
      expect(validateSkus.map((v: any) => [v.sku, v.matched, v.productUuid])).toEqual([
        ['BETA-ONLY', false, null],
        ['SHARED-SKU', false, null],
        ['ALPHA-GONE', false, null],
        ['ALPHA-1', true, mine.uuid],
      ]);
    });

    it('federated references to it resolve to null', async () => {
      const { _entities } = await h.ok(who, ENTITIES, {
        representations: [
          { __typename: 'Product', uuid: theirs.uuid },
          { __typename: 'Product', uuid: deleted.uuid },
          { __typename: 'Product', uuid: 'junk' },
          { __typename: 'Product', uuid: mine.uuid },
          { __typename: 'ShippingMethod', teamCode: 'beta', code: 'beta-post' },
          { __typename: 'ShippingMethod', teamCode: 'alpha', code: 'alpha-post' },
        ],
      });
      expect(_entities).toEqual([
        null,
        null,
        null,
        { __typename: 'Product', uuid: mine.uuid, sku: 'ALPHA-1', name: 'Alpha product' },
        null,
        { __typename: 'ShippingMethod', teamCode: 'alpha', code: 'alpha-post', name: 'Alpha post' },
      ]);
    });

    it("the other team's shipping methods are not listed or found", async () => {
      expect((await h.ok(who, SHIPPING_METHODS, {})).shippingMethods.map((m: any) => m.code)).toEqual(['alpha-post']);
      expect((await h.ok(who, SHIPPING_METHOD, { code: 'beta-post' })).shippingMethod).toBeNull();
    });
  });

  it("changing another team's or a deleted product answers exactly like an unknown uuid", async () => {
    const bo = backOffice('alpha');
    const body = async (query: string, uuid: string, extra: Record<string, unknown> = {}) => {
      const p = await h.problem(bo, query, { uuid, ...extra });
      return { problemType: p.problemType, detail: p.detail.replace(uuid, '<uuid>') };
    };
    const unknownUpdate = await body(UPDATE_PRODUCT, UNKNOWN, { input: { name: 'x' } });
    expect(unknownUpdate.problemType).toBe('not-found');
    expect(await body(UPDATE_PRODUCT, theirs.uuid, { input: { name: 'x' } })).toEqual(unknownUpdate);
    expect(await body(UPDATE_PRODUCT, deleted.uuid, { input: { name: 'x' } })).toEqual(unknownUpdate);
    const unknownDelete = await body(DELETE_PRODUCT, UNKNOWN);
    expect(await body(DELETE_PRODUCT, theirs.uuid)).toEqual(unknownDelete);
    // Nothing of theirs changed.
    expect((await h.ok(backOffice('beta'), PRODUCT, { uuid: theirs.uuid })).product).toMatchObject({ name: 'Beta product', version: 1 });
  });

  it("changing another team's shipping method answers like an unknown code", async () => {
    const bo = backOffice('alpha');
    const theirsUpdate = await h.problem(bo, UPDATE_SHIPPING_METHOD, { code: 'beta-post', input: { name: 'x' } });
    const unknownUpdate = await h.problem(bo, UPDATE_SHIPPING_METHOD, { code: 'no-such', input: { name: 'x' } });
    expect(theirsUpdate.problemType).toBe('not-found');
    expect(theirsUpdate.detail.replace('beta-post', '<c>')).toBe(unknownUpdate.detail.replace('no-such', '<c>'));
    expect((await h.problem(bo, DELETE_SHIPPING_METHOD, { code: 'beta-post' })).problemType).toBe('not-found');
    expect((await h.ok(backOffice('beta'), SHIPPING_METHOD, { code: 'beta-post' })).shippingMethod).toMatchObject({ name: 'Beta post', version: 1 });
  });

  it('a deleted product is visible only to back-office callers who ask for it', async () => {
    const bo = backOffice('alpha');
    expect((await h.ok(bo, PRODUCT, { uuid: deleted.uuid, includeDeleted: true })).product).toMatchObject({ uuid: deleted.uuid, deleted: true });
    const { products } = await h.ok(bo, PRODUCTS, { filter: { includeDeleted: true } });
    expect(products.edges.map((e: any) => [e.node.uuid, e.node.deleted])).toEqual(
      expect.arrayContaining([[deleted.uuid, true], [mine.uuid, false]]),
    );
    expect((await h.problem(channel('alpha'), PRODUCT, { uuid: deleted.uuid, includeDeleted: true })).problemType).toBe('forbidden');
    // Even asking for deleted ones never shows another team's.
    expect((await h.ok(bo, PRODUCT, { uuid: theirs.uuid, includeDeleted: true })).product).toBeNull();
  });

  it('service identities resolve references across teams, deleted ones included (old orders name them)', async () => {
    const { _entities } = await h.ok(service(), ENTITIES, {
      representations: [
        { __typename: 'Product', uuid: theirs.uuid },
        { __typename: 'Product', uuid: deleted.uuid },
      ],
    });
    expect(_entities.map((e: any) => e?.uuid)).toEqual([theirs.uuid, deleted.uuid]);
  });

  it('integrations cannot change the catalog, even their own', async () => {
    const who = channel('alpha');
    expect((await h.problem(who, UPDATE_PRODUCT, { uuid: mine.uuid, input: { name: 'x' } })).problemType).toBe('forbidden');
    expect((await h.problem(who, DELETE_PRODUCT, { uuid: mine.uuid })).problemType).toBe('forbidden');
    expect((await h.problem(who, CREATE_SHIPPING_METHOD, { input: { code: 'x', name: 'x', carrier: 'x' } })).problemType).toBe('forbidden');
    expect((await h.problem(who, DELETE_SHIPPING_METHOD, { code: 'alpha-post' })).problemType).toBe('forbidden');
  });
});
