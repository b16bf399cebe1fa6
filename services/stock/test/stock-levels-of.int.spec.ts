import { randomUUID } from 'node:crypto';
import { uniqueSuffix } from '@pf/platform/testing/infra';
import { backOffice, channelOf, feedOf, setStock, startStock, warehouse, type StockHarness } from './harness';

const STOCK_LEVELS_OF = /* GraphQL */ `
  query ($teamCode: ID!, $productUuids: [ID!]!) { stockLevelsOf(teamCode: $teamCode, productUuids: $productUuids) { productUuid sku stock } }`;

const webhooks = { kind: 'service', service: 'webhooks' } as const;

describe('stockLevelsOf (the feed for a list of products, for the webhooks service)', () => {
  let h: StockHarness;
  const team = `l${uniqueSuffix()}`;
  const other = `o${uniqueSuffix()}`;

  beforeAll(async () => {
    h = await startStock();
  }, 30_000);
  afterAll(() => h?.close(), 30_000);

  it('answers exactly the feed rows of the products asked for, in uuid order', async () => {
    const w = await warehouse(h, team, 'main');
    const products = [
      await h.product(team),
      await h.product(team, { sku: null }),
      await h.product(team, { podEnabled: true, podApproved: true }),
      await h.product(team, { activeState: 'inactive' }),
    ];
    await setStock(h, team, products[0]!.productUuid, w, 7);
    await setStock(h, team, products[3]!.productUuid, w, 2);
    const deleted = await h.updateProduct(await h.product(team), { deleted: true });
    const foreign = await h.product(other);
    const feed = await feedOf(h, channelOf(team));

    const asked = [...products.map((p) => p.productUuid), deleted.productUuid, foreign.productUuid, randomUUID(), 'not-a-uuid', products[0]!.productUuid.toUpperCase()];
    const { stockLevelsOf } = await h.ok<{ stockLevelsOf: { productUuid: string; sku: string | null; stock: number }[] }>(webhooks, STOCK_LEVELS_OF, {
      teamCode: team,
      productUuids: asked,
    });
    const expected = products
      .map((p) => p.productUuid)
      .sort()
      .map((uuid) => ({ productUuid: uuid, ...feed.get(uuid)! }));
    expect(stockLevelsOf).toEqual(expected);
    expect(stockLevelsOf.find((r) => r.productUuid === products[2]!.productUuid)!.stock).toBe(10_000);
  });

  it('shows other callers their own team only, and refuses more than 5000 uuids', async () => {
    const p = await h.product(team);
    const mine = await h.ok<{ stockLevelsOf: unknown[] }>(backOffice(team), STOCK_LEVELS_OF, { teamCode: team, productUuids: [p.productUuid] });
    expect(mine.stockLevelsOf).toHaveLength(1);
    const theirs = await h.ok<{ stockLevelsOf: unknown[] }>(backOffice(other), STOCK_LEVELS_OF, { teamCode: team, productUuids: [p.productUuid] });
    expect(theirs.stockLevelsOf).toEqual([]);
    const problem = await h.problem(webhooks, STOCK_LEVELS_OF, { teamCode: team, productUuids: Array.from({ length: 5001 }, () => randomUUID()) });
    expect(problem).toMatchObject({ problemType: 'validation-failed', violations: [{ property: 'productUuids' }] });
  });
});
