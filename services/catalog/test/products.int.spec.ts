import {
  backOffice,
  channel,
  CREATE_PRODUCT,
  createProduct,
  DELETE_PRODUCT,
  PRODUCT,
  PRODUCT_PAGE,
  PRODUCTS,
  service,
  startCatalog,
  UPDATE_PRODUCT,
  type CatalogHarness,
} from './harness';

describe('catalog products over HTTP', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await startCatalog();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('creating', () => {
    it('creates a product with every field, at version 1', async () => {
      const product = await createProduct(h, 'acme', {
        sku: 'PST-A3',
        name: '  Mountain poster ',
        description: 'Matte',
        activeState: 'pre-order',
        podEnabled: true,
        podApproved: false,
        dimensions: { weight: { measurement: 1.25, unit: 'kg' }, depth: { measurement: 3, unit: 'mm' } },
      });
      expect(product).toMatchObject({
        sku: 'PST-A3',
        name: 'Mountain poster',
        description: 'Matte',
        activeState: 'pre-order',
        podEnabled: true,
        podApproved: false,
        version: 1,
        deleted: false,
        deletedAt: null,
        dimensions: { weight: { measurement: 1.25, unit: 'kg' }, length: null, width: null, depth: { measurement: 3, unit: 'mm' } },
      });
      expect(product.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Date(product.createdAt).toISOString()).toBe(product.createdAt);
      expect(product.updatedAt).toBe(product.createdAt);
      // What was answered is what was stored.
      expect((await h.ok(backOffice('acme'), PRODUCT, { uuid: product.uuid })).product).toEqual(product);
    });

    it('defaults to an active product without SKU, print-on-demand or dimensions', async () => {
      const product = await createProduct(h, 'acme', { name: 'Plain' });
      expect(product).toMatchObject({ sku: null, activeState: 'active', podEnabled: false, podApproved: false, dimensions: null, description: null });
    });

    it('refuses bad input with violations naming each field', async () => {
      const problem = await h.problem(backOffice('acme'), CREATE_PRODUCT, {
        input: {
          sku: 'x'.repeat(256),
          name: ' ',
          activeState: 'Active',
          dimensions: { weight: { measurement: 2, unit: 'cm' }, length: { measurement: 0, unit: 'in' } },
        },
      });
      expect(problem.problemType).toBe('validation-failed');
      expect(problem.violations?.map((v) => v.property)).toEqual([
        'input.sku',
        'input.name',
        'input.activeState',
        'input.dimensions.weight.unit',
        'input.dimensions.length.measurement',
      ]);
    });

    it('refuses a SKU already used in the team as a conflict naming it, but not in another team', async () => {
      await createProduct(h, 'acme', { sku: 'DUP-1', name: 'First' });
      const problem = await h.problem(backOffice('acme'), CREATE_PRODUCT, { input: { sku: 'DUP-1', name: 'Second' } });
      expect(problem.problemType).toBe('conflict');
      expect(problem.detail).toContain('"DUP-1"');
      expect(problem.extensions).toEqual({ sku: 'DUP-1' });
      expect((await createProduct(h, 'other', { sku: 'DUP-1', name: 'Theirs' })).sku).toBe('DUP-1');
      // SKUs are exact: another case is another SKU.
      expect((await createProduct(h, 'acme', { sku: 'dup-1', name: 'Lowercase' })).sku).toBe('dup-1');
    });

    it('lets any number of products have no SKU', async () => {
      await createProduct(h, 'nosku', { name: 'One' });
      await createProduct(h, 'nosku', { name: 'Two', sku: null });
      const { products } = await h.ok(backOffice('nosku'), PRODUCTS, {});
      expect(products.totalCount).toBe(2);
    });

    it('is for back-office identities only', async () => {
      for (const who of [channel('acme'), service()]) {
        expect((await h.problem(who, CREATE_PRODUCT, { input: { name: 'x' } })).problemType).toBe('forbidden');
      }
    });

    it('refuses calls without a valid identity token', async () => {
      const res = await h.gql(null, '{ productPage { total } }');
      expect(res.errors?.[0]?.extensions?.problem?.problemType).toBe('unauthenticated');
    });
  });

  describe('SKU races', () => {
    it('of two concurrent creates with the same SKU exactly one wins; the other gets the conflict', async () => {
      for (let round = 0; round < 5; round++) {
        const sku = `RACE-${round}`;
        const results = await Promise.all(
          [1, 2].map((n) => h.gql(backOffice('race'), CREATE_PRODUCT, { input: { sku, name: `Racer ${n}` } })),
        );
        const won = results.filter((r) => r.data?.createProduct);
        const lost = results.filter((r) => r.errors);
        expect({ round, won: won.length, lost: lost.length }).toEqual({ round, won: 1, lost: 1 });
        expect(lost[0]!.errors![0]!.extensions!.problem).toMatchObject({ problemType: 'conflict', extensions: { sku } });
      }
      const { rows } = await h.pool.query(`SELECT sku, count(*)::int AS n FROM catalog.product WHERE team_code = 'race' GROUP BY sku ORDER BY sku`);
      expect(rows).toEqual([0, 1, 2, 3, 4].map((i) => ({ sku: `RACE-${i}`, n: 1 })));
    });

    it('two concurrent updates giving two products the same SKU: exactly one wins', async () => {
      const a = await createProduct(h, 'race2', { name: 'A' });
      const b = await createProduct(h, 'race2', { name: 'B' });
      const results = await Promise.all([a, b].map((p) => h.gql(backOffice('race2'), UPDATE_PRODUCT, { uuid: p.uuid, input: { sku: 'SAME' } })));
      expect(results.filter((r) => r.data?.updateProduct).length).toBe(1);
      expect(results.filter((r) => r.errors?.[0]?.extensions?.problem?.problemType === 'conflict').length).toBe(1);
    });
  });

  describe('updating', () => {
    it('changes only the fields given, increments the version, and clears nullable fields with null', async () => {
      const p = await createProduct(h, 'upd', { sku: 'U-1', name: 'Card', description: 'Folded', dimensions: { weight: { measurement: 20, unit: 'g' } } });
      const { updateProduct: changed } = await h.ok(backOffice('upd'), UPDATE_PRODUCT, {
        uuid: p.uuid,
        input: { activeState: 'inactive', podEnabled: true, podApproved: true, dimensions: { length: { measurement: 15, unit: 'cm' } } },
      });
      expect(changed).toMatchObject({
        sku: 'U-1',
        name: 'Card',
        description: 'Folded',
        activeState: 'inactive',
        podEnabled: true,
        podApproved: true,
        version: 2,
        dimensions: { weight: null, length: { measurement: 15, unit: 'cm' }, width: null, depth: null },
      });
      expect(changed.updatedAt >= p.updatedAt).toBe(true);
      const { updateProduct: cleared } = await h.ok(backOffice('upd'), UPDATE_PRODUCT, {
        uuid: p.uuid,
        input: { sku: null, description: null, dimensions: null },
      });
      expect(cleared).toMatchObject({ sku: null, description: null, dimensions: null, version: 3 });
    });

    it('a change that changes nothing keeps the version', async () => {
      const p = await createProduct(h, 'upd', { sku: 'U-2', name: 'Same' });
      const { updateProduct } = await h.ok(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid, input: { sku: 'U-2', name: 'Same', activeState: 'active' } });
      expect(updateProduct).toEqual(p);
    });

    it('refuses bad input naming the fields, and a taken SKU as a conflict', async () => {
      const p = await createProduct(h, 'upd', { sku: 'U-3', name: 'x' });
      await createProduct(h, 'upd', { sku: 'U-4', name: 'y' });
      const bad = await h.problem(backOffice('upd'), UPDATE_PRODUCT, {
        uuid: p.uuid,
        input: { sku: '', dimensions: { weight: { measurement: 1, unit: 'kilo' } } },
      });
      expect(bad.violations?.map((v) => v.property)).toEqual(['input.sku', 'input.dimensions.weight.unit']);
      const taken = await h.problem(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid, input: { sku: 'U-4' } });
      expect(taken).toMatchObject({ problemType: 'conflict', extensions: { sku: 'U-4' } });
    });

    it('with expectedVersion refuses to overwrite a change made meanwhile', async () => {
      const p = await createProduct(h, 'upd', { name: 'Versioned' });
      await h.ok(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: 'Changed by someone' }, expectedVersion: 1 });
      const stale = await h.problem(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: 'Mine' }, expectedVersion: 1 });
      expect(stale).toMatchObject({ problemType: 'conflict', extensions: { version: 2 } });
      expect((await h.problem(backOffice('upd'), DELETE_PRODUCT, { uuid: p.uuid, expectedVersion: 1 })).problemType).toBe('conflict');
    });

    it('concurrent updates of one product apply one after the other, each with its own version', async () => {
      const p = await createProduct(h, 'upd', { name: 'Busy' });
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => h.ok(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: `Name ${i}` } })),
      );
      expect((await h.ok(backOffice('upd'), PRODUCT, { uuid: p.uuid })).product.version).toBe(9);
      const events = (await h.outboxAfter()).filter((r) => r.event_key === p.uuid).map((r) => r.envelope.payload.version);
      expect(events).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('answers a malformed or unknown uuid with not-found', async () => {
      for (const uuid of ['nope', '00000000-0000-4000-8000-000000000000']) {
        const problem = await h.problem(backOffice('upd'), UPDATE_PRODUCT, { uuid, input: { name: 'x' } });
        expect(problem.problemType).toBe('not-found');
      }
    });

    it('accepts a uuid in upper case', async () => {
      const p = await createProduct(h, 'upd', { name: 'Case' });
      const { updateProduct } = await h.ok(backOffice('upd'), UPDATE_PRODUCT, { uuid: p.uuid.toUpperCase(), input: { name: 'CASE' } });
      expect(updateProduct.uuid).toBe(p.uuid);
      expect((await h.ok(channel('upd'), PRODUCT, { uuid: p.uuid.toUpperCase() })).product.name).toBe('CASE');
    });
  });

  describe('deleting', () => {
    it('soft-deletes: returns the final state, keeps the row, frees the SKU', async () => {
      const p = await createProduct(h, 'del', { sku: 'D-1', name: 'Going' });
      const { deleteProduct } = await h.ok(backOffice('del'), DELETE_PRODUCT, { uuid: p.uuid });
      expect(deleteProduct).toMatchObject({ uuid: p.uuid, deleted: true, version: 2 });
      expect(new Date(deleteProduct.deletedAt).toISOString()).toBe(deleteProduct.deletedAt);
      const { rows } = await h.pool.query('SELECT sku, deleted_at IS NOT NULL AS deleted FROM catalog.product WHERE uuid = $1', [p.uuid]);
      expect(rows).toEqual([{ sku: 'D-1', deleted: true }]);
      expect((await createProduct(h, 'del', { sku: 'D-1', name: 'Successor' })).sku).toBe('D-1');
      // Deleted is gone for changes too.
      expect((await h.problem(backOffice('del'), DELETE_PRODUCT, { uuid: p.uuid })).problemType).toBe('not-found');
      expect((await h.problem(backOffice('del'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: 'Back' } })).problemType).toBe('not-found');
    });
  });

  describe('the back-office list', () => {
    const team = 'list';
    let all: Record<string, any>[];

    beforeAll(async () => {
      const inputs = [
        { sku: 'POSTER-RED', name: 'Red poster', activeState: 'active' },
        { sku: 'POSTER-BLUE', name: 'Blue poster', activeState: 'inactive' },
        { sku: 'MUG-1', name: 'Mug with a poster print', activeState: 'pre-order' },
        { sku: 'CARD-50%', name: 'Card fifty percent', activeState: 'active' },
        { sku: 'CARD-500', name: 'Card five hundred', activeState: 'active' },
        { sku: null, name: 'Tote bag', activeState: 'active' },
        { sku: 'GONE', name: 'Deleted poster', activeState: 'active' },
      ];
      all = [];
      for (const input of inputs) all.push(await createProduct(h, team, input));
      await h.ok(backOffice(team), DELETE_PRODUCT, { uuid: all[6]!.uuid });
      await createProduct(h, 'listother', { sku: 'POSTER-OTHER', name: 'Other poster' });
    });

    const newestFirst = (ps: Record<string, any>[]) =>
      [...ps].sort((a, b) => (a.createdAt === b.createdAt ? (a.uuid < b.uuid ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).map((p) => p.uuid);

    it('lists the live products newest first, with the total', async () => {
      const { products } = await h.ok(backOffice(team), PRODUCTS, {});
      expect(products.totalCount).toBe(6);
      expect(products.edges.map((e: any) => e.node.uuid)).toEqual(newestFirst(all.slice(0, 6)));
      expect(products.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    });

    it('walks every page with cursors, each product once', async () => {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const { products }: { products: any } = await h.ok(backOffice(team), PRODUCTS, { first: 4, after, filter: { includeDeleted: true } });
        pages++;
        seen.push(...products.edges.map((e: any) => e.node.uuid));
        expect(products.pageInfo.endCursor).toBe(products.edges[products.edges.length - 1]?.cursor ?? null);
        if (!products.pageInfo.hasNextPage) break;
        after = products.pageInfo.endCursor;
      }
      expect(pages).toBe(2);
      expect(seen).toEqual(newestFirst(all));
    });

    it('walks pages exactly when products share a creation time (ties broken by uuid)', async () => {
      const made: string[] = [];
      for (let i = 0; i < 9; i++) made.push((await createProduct(h, 'ties', { name: `Tie ${i}` })).uuid);
      await h.pool.query(`UPDATE catalog.product SET created_at = '2026-01-01T00:00:00.000Z' WHERE team_code = 'ties' AND name <> 'Tie 8'`);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const { products }: { products: any } = await h.ok(backOffice('ties'), PRODUCTS, { first: 2, after });
        seen.push(...products.edges.map((e: any) => e.node.uuid));
        if (!products.pageInfo.hasNextPage) break;
        after = products.pageInfo.endCursor;
      }
      // The one product with its own (later) time first, then the eight tied ones by uuid, descending.
      expect(seen).toEqual([made[8], ...made.slice(0, 8).sort().reverse()]);
      const pages: string[] = [];
      for (let page = 1; page <= 5; page++) {
        pages.push(...(await h.ok(channel('ties'), PRODUCT_PAGE, { page, perPage: 2 })).productPage.items.map((p: any) => p.uuid));
      }
      expect(pages).toEqual([...made.slice(0, 8).sort(), made[8]]);
    });

    it('filters by active state, exact SKU, and a case-insensitive search in name and SKU', async () => {
      const names = async (filter: Record<string, unknown>) => {
        const { products } = await h.ok(backOffice(team), PRODUCTS, { filter });
        return products.edges.map((e: any) => e.node.name).sort();
      };
      expect(await names({ activeState: 'inactive' })).toEqual(['Blue poster']);
      expect(await names({ activeState: 'pre-order' })).toEqual(['Mug with a poster print']);
      expect(await names({ sku: 'MUG-1' })).toEqual(['Mug with a poster print']);
      expect(await names({ sku: 'mug-1' })).toEqual([]);
      expect(await names({ search: 'POSTER' })).toEqual(['Blue poster', 'Mug with a poster print', 'Red poster']);
      expect(await names({ search: 'poster-r' })).toEqual(['Red poster']);
      expect(await names({ search: 'poster', activeState: 'active' })).toEqual(['Red poster']);
      // Wildcards in the term match literally.
      expect(await names({ search: '50%' })).toEqual(['Card fifty percent']);
      expect(await names({ search: 'card-5_0' })).toEqual([]);
      expect(await names({ search: 'poster', includeDeleted: true })).toEqual(['Blue poster', 'Deleted poster', 'Mug with a poster print', 'Red poster']);
    });

    it('counts the filtered list', async () => {
      const { products } = await h.ok(backOffice(team), PRODUCTS, { first: 1, filter: { search: 'poster' } });
      expect(products.totalCount).toBe(3);
      expect(products.edges).toHaveLength(1);
      expect(products.pageInfo.hasNextPage).toBe(true);
    });

    it('bounds first, rejects foreign cursors and bad filters, naming the argument', async () => {
      const props = async (vars: Record<string, unknown>) =>
        (await h.problem(backOffice(team), PRODUCTS, vars)).violations?.map((v) => v.property);
      expect(await props({ first: 101 })).toEqual(['first']);
      expect(await props({ first: 0 })).toEqual(['first']);
      expect(await props({ after: 'bm90IGEgY3Vyc29y' })).toEqual(['after']);
      expect(await props({ filter: { activeState: 'ACTIVE' } })).toEqual(['filter.activeState']);
      expect(await props({ filter: { search: 'x'.repeat(256) } })).toEqual(['filter.search']);
    });

    it('gives integrations the list without deleted products, and refuses them includeDeleted', async () => {
      const { products } = await h.ok(channel(team), PRODUCTS, {});
      expect(products.totalCount).toBe(6);
      expect((await h.problem(channel(team), PRODUCTS, { filter: { includeDeleted: true } })).problemType).toBe('forbidden');
    });

    it('lets service identities list a named team', async () => {
      const { products } = await h.ok(service(), PRODUCTS, { teamCode: team });
      expect(products.totalCount).toBe(6);
      expect((await h.problem(service(), PRODUCTS, {})).violations?.map((v) => v.property)).toEqual(['teamCode']);
    });
  });

  describe('numbered pages for the Channel API', () => {
    const team = 'pages';
    let created: Record<string, any>[];

    beforeAll(async () => {
      created = [];
      const states = ['active', 'inactive', 'pre-order'];
      for (let i = 0; i < 23; i++) {
        created.push(await createProduct(h, team, { sku: `P-${String(i).padStart(2, '0')}`, name: `Product ${i}`, activeState: states[i % 3] }));
      }
      await h.ok(backOffice(team), DELETE_PRODUCT, { uuid: created[22]!.uuid });
    });

    const oldestFirst = (ps: Record<string, any>[]) =>
      [...ps].sort((a, b) => (a.createdAt === b.createdAt ? (a.uuid < b.uuid ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1)).map((p) => p.uuid);

    it('pages through the live products oldest first with total, lastPage, from and to', async () => {
      const page = async (n: number) => (await h.ok(channel(team), PRODUCT_PAGE, { page: n, perPage: 10 })).productPage;
      const [p1, p2, p3, p4] = [await page(1), await page(2), await page(3), await page(4)];
      expect([p1, p2, p3, p4].map(({ items, ...facts }) => ({ ...facts, n: items.length }))).toEqual([
        { page: 1, perPage: 10, total: 22, lastPage: 3, from: 1, to: 10, n: 10 },
        { page: 2, perPage: 10, total: 22, lastPage: 3, from: 11, to: 20, n: 10 },
        { page: 3, perPage: 10, total: 22, lastPage: 3, from: 21, to: 22, n: 2 },
        { page: 4, perPage: 10, total: 22, lastPage: 3, from: null, to: null, n: 0 },
      ]);
      expect([...p1.items, ...p2.items, ...p3.items].map((p: any) => p.uuid)).toEqual(oldestFirst(created.slice(0, 22)));
    });

    it('defaults to page 1 of 15', async () => {
      const { productPage } = await h.ok(channel(team), PRODUCT_PAGE, {});
      expect({ page: productPage.page, perPage: productPage.perPage, n: productPage.items.length }).toEqual({ page: 1, perPage: 15, n: 15 });
    });

    it('filters by active state, counting only those', async () => {
      const { productPage } = await h.ok(channel(team), PRODUCT_PAGE, { activeState: 'pre-order', perPage: 100 });
      expect(productPage.total).toBe(7);
      expect(new Set(productPage.items.map((p: any) => p.activeState))).toEqual(new Set(['pre-order']));
    });

    it('names a bad page, perPage or activeState', async () => {
      const props = async (vars: Record<string, unknown>) => (await h.problem(channel(team), PRODUCT_PAGE, vars)).violations?.map((v) => v.property);
      expect(await props({ activeState: 'Active' })).toEqual(['activeState']);
      expect(await props({ activeState: 'deleted' })).toEqual(['activeState']);
      expect(await props({ perPage: 101 })).toEqual(['perPage']);
      expect(await props({ page: 0, perPage: 0 })).toEqual(['page', 'perPage']);
    });

    it('a page is one snapshot: while products change, every product on it meets the filter and the count agrees with it', async () => {
      const snap = 'pagesnap';
      const mine: Record<string, any>[] = [];
      for (let i = 0; i < 12; i++) mine.push(await createProduct(h, snap, { sku: `S-${i}`, name: `Snap ${i}`, activeState: 'active' }));
      let toggling = true;
      const toggler = (async () => {
        for (let round = 0; toggling; round++) {
          const activeState = round % 2 === 0 ? 'inactive' : 'active';
          await Promise.all(mine.map((p) => h.ok(backOffice(snap), UPDATE_PRODUCT, { uuid: p.uuid, input: { activeState } })));
        }
      })();
      try {
        for (let i = 0; i < 80; i++) {
          const { productPage } = await h.ok(channel(snap), PRODUCT_PAGE, { activeState: 'active', perPage: 100 });
          expect(productPage.items.filter((p: any) => p.activeState !== 'active')).toEqual([]);
          expect(productPage.total).toBe(productPage.items.length);
        }
      } finally {
        toggling = false;
        await toggler;
      }
    }, 120_000);

    it('an empty team has one empty page', async () => {
      const { productPage } = await h.ok(channel('emptyteam'), PRODUCT_PAGE, {});
      expect(productPage).toEqual({ page: 1, perPage: 15, total: 0, lastPage: 1, from: null, to: null, items: [] });
    });
  });
});
