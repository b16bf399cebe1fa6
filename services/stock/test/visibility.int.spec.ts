import type { ProductState } from '@pf/platform/events/catalog';
import {
  backOffice,
  channelOf,
  feedOf,
  ordersService,
  PRODUCT_FIGURE,
  PRODUCT_STOCK,
  SET_STOCK,
  setStock,
  startStock,
  STOCK_LEVELS,
  UPDATE_WAREHOUSE,
  warehouse,
  type StockHarness,
} from './harness';

/** A team's stock is invisible to every other team, whichever way it is asked for. */
describe('stock visibility across teams', () => {
  let h: StockHarness;
  let mine: ProductState;
  let theirs: ProductState;
  let theirWarehouse: string;

  beforeAll(async () => {
    h = await startStock();
    const myWarehouse = await warehouse(h, 'mine', 'main');
    theirWarehouse = await warehouse(h, 'theirs', 'main');
    mine = await h.product('mine', { sku: 'SAME-SKU' });
    theirs = await h.product('theirs', { sku: 'SAME-SKU' });
    await setStock(h, 'mine', mine.productUuid, myWarehouse, 3);
    await setStock(h, 'theirs', theirs.productUuid, theirWarehouse, 70);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('the feed of a channel lists its own team only, even when it names another team', async () => {
    expect([...(await feedOf(h, channelOf('mine'))).entries()]).toEqual([[mine.productUuid, { sku: 'SAME-SKU', stock: 3 }]]);
    expect(await h.ok(channelOf('mine'), STOCK_LEVELS, { teamCode: 'theirs' })).toEqual({ stockLevels: { items: [], nextCursor: null } });
    expect(await h.ok(backOffice('mine'), STOCK_LEVELS, { teamCode: 'theirs' })).toEqual({ stockLevels: { items: [], nextCursor: null } });
    // A service identity reads the team it names, and must name one.
    expect([...(await feedOf(h, ordersService, 'theirs')).keys()]).toEqual([theirs.productUuid]);
    expect(await h.problem(ordersService, STOCK_LEVELS, {})).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'teamCode' }] });
  });

  it('another team\'s product resolves to null on the Product entity', async () => {
    const representations = [mine, theirs].map((p) => ({ __typename: 'Product', uuid: p.productUuid }));
    expect(await h.ok(channelOf('mine'), PRODUCT_FIGURE, { representations })).toEqual({ _entities: [{ uuid: mine.productUuid, stock: 3 }, null] });
    expect(await h.ok(backOffice('mine'), PRODUCT_FIGURE, { representations })).toEqual({ _entities: [{ uuid: mine.productUuid, stock: 3 }, null] });
    expect(await h.ok(ordersService, PRODUCT_FIGURE, { representations })).toEqual({
      _entities: [
        { uuid: mine.productUuid, stock: 3 },
        { uuid: theirs.productUuid, stock: 70 },
      ],
    });
  });

  it('a deleted product resolves to null for channels and merchants, as in the catalog; services still see it', async () => {
    const gone = await h.product('mine', { sku: 'GONE-SKU' });
    await h.updateProduct(gone, { deleted: true });
    const representations = [{ __typename: 'Product', uuid: gone.productUuid }];
    expect(await h.ok(channelOf('mine'), PRODUCT_FIGURE, { representations })).toEqual({ _entities: [null] });
    expect(await h.ok(backOffice('mine'), PRODUCT_FIGURE, { representations })).toEqual({ _entities: [null] });
    expect(await h.ok(ordersService, PRODUCT_FIGURE, { representations })).toEqual({ _entities: [{ uuid: gone.productUuid, stock: 0 }] });
  });

  it('integrations see figures, never warehouses, per-warehouse stock or holds', async () => {
    const res = await h.gql(channelOf('mine'), PRODUCT_STOCK, { representations: [{ __typename: 'Product', uuid: mine.productUuid }] });
    expect(res.errors?.[0]?.extensions?.problem).toMatchObject({ problemType: 'forbidden' });
    expect(await h.problem(channelOf('mine'), '{ warehouses { code } }')).toMatchObject({ problemType: 'forbidden' });
    expect(await h.problem(channelOf('mine'), `{ stockAdjustments(productUuid: "${mine.productUuid}") { delta } }`)).toMatchObject({ problemType: 'forbidden' });
  });

  it('another team\'s warehouses and stock are not found, and unchanged', async () => {
    expect(await h.ok(backOffice('mine'), '{ warehouses(teamCode: "theirs") { code } }')).toEqual({ warehouses: [] });
    expect(await h.ok(backOffice('mine'), `{ warehouse(id: "${theirWarehouse}") { code } }`)).toEqual({ warehouse: null });
    expect(await h.ok(backOffice('mine'), `{ stockAdjustments(productUuid: "${theirs.productUuid}") { delta } }`)).toEqual({ stockAdjustments: [] });
    expect(await h.problem(backOffice('mine'), UPDATE_WAREHOUSE, { id: theirWarehouse, input: { enabled: false } })).toMatchObject({ problemType: 'not-found' });
    expect(
      await h.problem(backOffice('mine'), SET_STOCK, { input: { productUuid: theirs.productUuid, warehouseId: theirWarehouse, quantity: 0, reason: 'x' } }),
    ).toMatchObject({ problemType: 'not-found' });
    expect((await feedOf(h, ordersService, 'theirs')).get(theirs.productUuid)).toEqual({ sku: 'SAME-SKU', stock: 70 });
  });

  it('a channel identity cannot change stock at all', async () => {
    expect(
      await h.problem(channelOf('mine'), SET_STOCK, { input: { productUuid: mine.productUuid, warehouseId: theirWarehouse, quantity: 0, reason: 'x' } }),
    ).toMatchObject({ problemType: 'forbidden' });
  });
});
