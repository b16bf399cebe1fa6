import { gzipSync } from 'node:zlib';
import { PROBLEM_TYPE_BASE } from '@pf/platform/problems';
import { createProduct, createShippingMethod, deleteProduct, type SeededProduct } from './support/catalog';
import { closeAgents, seedTeam, startSystem, type EdgeResponse, type IssuedToken, type RunningEdge, type System } from './support/system';

/**
 * `GET /products`, `GET /products/{productUuid}`, `POST /products/validate-skus` and
 * `GET /shipping-methods` through the real system (edge -> gateway -> catalog on Postgres), data
 * made by the merchant's back-office GraphQL; every response checked against the OpenAPI document.
 */
describe('products, SKU validation and shipping methods', () => {
  let sys: System;
  let edge: RunningEdge;
  let acme: Record<string, IssuedToken>;
  let beta: Record<string, IssuedToken>;
  /** acme's live products, oldest first (the order of GET /products). */
  let live: SeededProduct[];
  let gone: SeededProduct;
  let betaOnly: SeededProduct;
  let betaTwin: SeededProduct;
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';

  async function call(method: string, path: string, opts: { token?: string; body?: unknown; channel?: string } = {}): Promise<EdgeResponse> {
    const channel = opts.channel ?? 'acme-shop';
    const res = await edge.call(method, `/v1/channels/${channel}${path}`, {
      token: opts.token ?? acme.shop!.token,
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
    sys.contract.check(method, templateOf(path), res);
    expect(res.headers['service-api-version']).toBe('1.2.0');
    return res;
  }

  /** The document's path for a concrete one. */
  function templateOf(path: string): string {
    const bare = path.split('?')[0]!;
    if (bare === '/products/validate-skus') return bare;
    if (bare.startsWith('/products/')) return '/products/{productUuid}';
    return bare;
  }

  const asResource = (p: SeededProduct) => expect.objectContaining({ uuid: p.uuid, sku: p.sku, activeState: p.activeState });

  beforeAll(async () => {
    sys = await startSystem({ catalog: true });
    edge = await sys.startEdge();
    acme = await seedTeam(sys, 'acme', ['shop', 'other']);
    beta = await seedTeam(sys, 'beta', ['shop']);
    // Created one after the other, so oldest first is this order.
    const made: SeededProduct[] = [];
    made.push(
      await createProduct(sys, 'acme', {
        sku: 'ACME-1',
        name: 'Poster A3',
        dimensions: {
          weight: { measurement: 0.25, unit: 'kg' },
          length: { measurement: 42, unit: 'cm' },
          width: { measurement: 29.7, unit: 'cm' },
          depth: { measurement: 0.5, unit: 'mm' },
        },
      }),
    );
    made.push(await createProduct(sys, 'acme', { sku: null, name: 'Mystery box' }));
    made.push(await createProduct(sys, 'acme', { sku: 'ACME-3', activeState: 'inactive', dimensions: { weight: { measurement: 1.5, unit: 'lb' } } }));
    made.push(await createProduct(sys, 'acme', { sku: 'ACME-4', activeState: 'pre-order', podEnabled: true, podApproved: true }));
    gone = await createProduct(sys, 'acme', { sku: 'ACME-GONE' });
    made.push(await createProduct(sys, 'acme', { sku: 'ACME-5' }));
    made.push(await createProduct(sys, 'acme', { sku: 'ACME-6', activeState: 'pre-order' }));
    made.push(await createProduct(sys, 'acme', { sku: 'ACME-7', podEnabled: true }));
    await deleteProduct(sys, 'acme', gone.uuid);
    betaTwin = await createProduct(sys, 'beta', { sku: 'ACME-1', name: 'Beta product with an acme SKU' });
    betaOnly = await createProduct(sys, 'beta', { sku: 'BETA-ONLY' });
    live = [...made].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.uuid.localeCompare(b.uuid));

    await createShippingMethod(sys, 'acme', {
      code: 'express',
      name: 'Express 24',
      carrier: 'DPD',
      serviceLevel: 'express',
      tracked: true,
      countryCodes: ['GB'],
      minDeliveryDays: 1,
      maxDeliveryDays: 1,
      priority: 50,
    });
    await createShippingMethod(sys, 'acme', { code: 'economy', name: 'Economy post', carrier: 'Royal Mail', serviceLevel: 'economy', priority: 10 });
    await createShippingMethod(sys, 'acme', { code: 'retired', name: 'Retired', carrier: 'Nobody', active: false });
    await createShippingMethod(sys, 'beta', { code: 'beta-post', name: 'Beta post', carrier: 'Post' });
  }, 90_000);

  afterAll(async () => {
    await sys?.close();
    await closeAgents();
  });

  describe('GET /products', () => {
    const listUrl = () => `${edge.url}/v1/channels/acme-shop/products`;

    it('page 1 by default: 25 per page, every live product of the team oldest first, exact links and meta', async () => {
      const res = await call('GET', '/products');
      expect(res.status).toBe(200);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(res.body.data.map((p: { uuid: string }) => p.uuid)).toEqual(live.map((p) => p.uuid));
      const page1 = `${listUrl()}?per-page=25&page=1`;
      expect(res.body.links).toEqual({ first: page1, last: page1, prev: null, next: null });
      expect(res.body.meta).toEqual({
        current_page: 1,
        from: 1,
        last_page: 1,
        links: [
          { url: null, label: 'Previous', active: false },
          { url: page1, label: '1', active: true },
          { url: null, label: 'Next', active: false },
        ],
        path: listUrl(),
        per_page: 25,
        to: 7,
        total: 7,
      });
    });

    it('the product resource: every member; dimensions an object of the measures present, or [] when none', async () => {
      const { body } = await call('GET', '/products');
      const byUuid = new Map<string, any>(body.data.map((p: { uuid: string }) => [p.uuid, p]));
      const [full, bare, weightOnly, pod] = live;
      expect(byUuid.get(full!.uuid)).toEqual({
        uuid: full!.uuid,
        sku: 'ACME-1',
        name: 'Poster A3',
        activeState: 'active',
        podEnabled: false,
        podApproved: false,
        dimensions: {
          weight: { measurement: 0.25, unit: 'kg' },
          length: { measurement: 42, unit: 'cm' },
          width: { measurement: 29.7, unit: 'cm' },
          depth: { measurement: 0.5, unit: 'mm' },
        },
        createdAt: full!.createdAt,
        updatedAt: full!.updatedAt,
      });
      expect(byUuid.get(bare!.uuid)).toMatchObject({ sku: null, name: 'Mystery box', dimensions: [] });
      expect(Array.isArray(byUuid.get(bare!.uuid).dimensions)).toBe(true);
      expect(byUuid.get(weightOnly!.uuid)).toMatchObject({ activeState: 'inactive', dimensions: { weight: { measurement: 1.5, unit: 'lb' } } });
      expect(Object.keys(byUuid.get(weightOnly!.uuid).dimensions)).toEqual(['weight']);
      expect(byUuid.get(pod!.uuid)).toMatchObject({ activeState: 'pre-order', podEnabled: true, podApproved: true, dimensions: [] });
    });

    it('takes perPage and per_page (the name meta answers with) too; per-page wins; links use per-page', async () => {
      const underscored = await call('GET', '/products?per_page=3');
      expect(underscored.body.meta.per_page).toBe(3);
      expect(underscored.body.data).toHaveLength(3);
      expect(underscored.body.links.next).toBe(`${listUrl()}?per-page=3&page=2`);
      expect((await call('GET', '/products?perPage=2')).body.data).toHaveLength(2);
      expect((await call('GET', '/products?per-page=4&per_page=2')).body.meta.per_page).toBe(4);
      const refused = await call('GET', '/products?per_page=0');
      expect(refused.status).toBe(422);
      expect(refused.body.violations.map((v: { property: string }) => v.property)).toEqual(['per_page']);
    });

    describe('3 per page (7 products: pages 1-3, page 4 empty)', () => {
      const url = (page: number) => `${listUrl()}?per-page=3&page=${page}`;
      const pager = (current: number) => [
        { url: current > 1 ? url(current - 1) : null, label: 'Previous', active: false },
        { url: url(1), label: '1', active: current === 1 },
        { url: url(2), label: '2', active: current === 2 },
        { url: url(3), label: '3', active: current === 3 },
        { url: current < 3 ? url(current + 1) : null, label: 'Next', active: false },
      ];

      it('first page', async () => {
        const { status, body } = await call('GET', '/products?per-page=3');
        expect(status).toBe(200);
        expect(body.data).toEqual(live.slice(0, 3).map(asResource));
        expect(body.links).toEqual({ first: url(1), last: url(3), prev: null, next: url(2) });
        expect(body.meta).toEqual({ current_page: 1, from: 1, last_page: 3, links: pager(1), path: listUrl(), per_page: 3, to: 3, total: 7 });
      });

      it('middle page', async () => {
        const { body } = await call('GET', '/products?page=2&per-page=3');
        expect(body.data).toEqual(live.slice(3, 6).map(asResource));
        expect(body.links).toEqual({ first: url(1), last: url(3), prev: url(1), next: url(3) });
        expect(body.meta).toEqual({ current_page: 2, from: 4, last_page: 3, links: pager(2), path: listUrl(), per_page: 3, to: 6, total: 7 });
      });

      it('last page', async () => {
        const { body } = await call('GET', '/products?page=3&per-page=3');
        expect(body.data).toEqual([asResource(live[6]!)]);
        expect(body.links).toEqual({ first: url(1), last: url(3), prev: url(2), next: null });
        expect(body.meta).toEqual({ current_page: 3, from: 7, last_page: 3, links: pager(3), path: listUrl(), per_page: 3, to: 7, total: 7 });
      });

      it('a page beyond the last: empty, from and to null', async () => {
        const { status, body } = await call('GET', '/products?page=4&per-page=3');
        expect(status).toBe(200);
        expect(body.data).toEqual([]);
        expect(body.links).toEqual({ first: url(1), last: url(3), prev: url(3), next: null });
        expect(body.meta).toMatchObject({ current_page: 4, from: null, to: null, last_page: 3, per_page: 3, total: 7 });
        expect(body.meta.links.filter((l: { active: boolean }) => l.active)).toEqual([]);
      });
    });

    it('nothing to list (beta has no inactive product): one empty page', async () => {
      const { body } = await call('GET', '/products?active-state=inactive', { channel: 'beta-shop', token: beta.shop!.token });
      const page1 = `${edge.url}/v1/channels/beta-shop/products?active-state=inactive&per-page=25&page=1`;
      expect(body).toEqual({
        data: [],
        links: { first: page1, last: page1, prev: null, next: null },
        meta: {
          current_page: 1,
          from: null,
          last_page: 1,
          links: [
            { url: null, label: 'Previous', active: false },
            { url: page1, label: '1', active: true },
            { url: null, label: 'Next', active: false },
          ],
          path: `${edge.url}/v1/channels/beta-shop/products`,
          per_page: 25,
          to: null,
          total: 0,
        },
      });
    });

    it.each([
      ['active', 4],
      ['inactive', 1],
      ['pre-order', 2],
    ])('active-state=%s lists only those, and every link keeps the filter', async (state, count) => {
      const { body } = await call('GET', `/products?active-state=${state}&per-page=1&page=1`);
      const expected = live.filter((p) => p.activeState === state);
      expect(expected).toHaveLength(count);
      expect(body.data).toEqual([asResource(expected[0]!)]);
      expect(body.meta).toMatchObject({ total: count, last_page: count, per_page: 1 });
      expect(body.links.last).toBe(`${listUrl()}?active-state=${state}&per-page=1&page=${count}`);
      for (const link of [body.links.first, body.links.last, body.links.next, ...body.meta.links.map((l: { url: string | null }) => l.url)]) {
        if (link !== null) expect(new URL(link).searchParams.get('active-state')).toBe(state);
      }
    });

    it.each([
      ['active-state=Active', 'active-state'],
      ['active-state=ACTIVE', 'active-state'],
      ['active-state=foo', 'active-state'],
      ['active-state=', 'active-state'],
      ['active-state=active%20', 'active-state'],
      ['active-state=active&active-state=inactive', 'active-state'],
      ['active-state=active&active-state=active', 'active-state'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=two', 'page'],
      ['page=1000001', 'page'],
      ['per-page=0', 'per-page'],
      ['per-page=101', 'per-page'],
      ['per-page=ten', 'per-page'],
      // Integers in decimal digits only: Number() would read these as 10, 2, 5 and 3.
      ['per-page=1e1', 'per-page'],
      ['page=0x2', 'page'],
      ['perPage=%205', 'perPage'],
      ['per_page=3.0', 'per_page'],
      ['page=', 'page'],
    ])('?%s answers 422 naming %s', async (query, property) => {
      const res = await call('GET', `/products?${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ type: `${PROBLEM_TYPE_BASE}validation-failed`, status: 422, title: 'Unprocessable Entity' });
      expect(res.body.violations[0].property).toBe(property);
    });

    it('never lists another team product nor a deleted one', async () => {
      const { body } = await call('GET', '/products?per-page=100');
      const uuids = body.data.map((p: { uuid: string }) => p.uuid);
      expect(uuids).not.toContain(betaTwin.uuid);
      expect(uuids).not.toContain(betaOnly.uuid);
      expect(uuids).not.toContain(gone.uuid);
      const theirs = await call('GET', '/products?per-page=100', { channel: 'beta-shop', token: beta.shop!.token });
      expect(theirs.body.data.map((p: { uuid: string }) => p.uuid).sort()).toEqual([betaTwin.uuid, betaOnly.uuid].sort());
    });

    it('links start with PUBLIC_BASE_URL when it is configured', async () => {
      const behindProxy = await sys.startEdge({ PUBLIC_BASE_URL: 'https://api.example.com/' });
      try {
        const res = await behindProxy.call('GET', '/v1/channels/acme-shop/products?per-page=5', { token: acme.shop!.token });
        sys.contract.check('GET', '/products', res);
        expect(res.body.links).toEqual({
          first: 'https://api.example.com/v1/channels/acme-shop/products?per-page=5&page=1',
          last: 'https://api.example.com/v1/channels/acme-shop/products?per-page=5&page=2',
          prev: null,
          next: 'https://api.example.com/v1/channels/acme-shop/products?per-page=5&page=2',
        });
        expect(res.body.meta.path).toBe('https://api.example.com/v1/channels/acme-shop/products');
      } finally {
        await behindProxy.close();
      }
    });
  });

  describe('GET /products/{productUuid}', () => {
    it('answers a product of the team', async () => {
      const [full] = live;
      const res = await call('GET', `/products/${full!.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          uuid: full!.uuid,
          sku: 'ACME-1',
          name: 'Poster A3',
          activeState: 'active',
          podEnabled: false,
          podApproved: false,
          dimensions: {
            weight: { measurement: 0.25, unit: 'kg' },
            length: { measurement: 42, unit: 'cm' },
            width: { measurement: 29.7, unit: 'cm' },
            depth: { measurement: 0.5, unit: 'mm' },
          },
          createdAt: full!.createdAt,
          updatedAt: full!.updatedAt,
        },
      });
      // in either case
      expect((await call('GET', `/products/${full!.uuid.toUpperCase()}`)).body.data.uuid).toBe(full!.uuid);
    });

    it('dimensions [] for a product without', async () => {
      const res = await call('GET', `/products/${live[1]!.uuid}`);
      expect(res.body.data.dimensions).toEqual([]);
    });

    it('another team product, a deleted one, an unknown uuid and a malformed one: the very same 404', async () => {
      const answers = [
        await call('GET', `/products/${betaTwin.uuid}`),
        await call('GET', `/products/${gone.uuid}`),
        await call('GET', `/products/${UNKNOWN}`),
        await call('GET', '/products/not-a-uuid'),
        await call('GET', `/products/${live[0]!.uuid}x`),
        await call('GET', '/products/%20'),
        // nor one whose escapes do not even decode
        await call('GET', '/products/%C0%AF'),
        await call('GET', '/products/%ZZ'),
      ];
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(res.contentType).toMatch(/^application\/problem\+json/);
        expect(res.body).toEqual({
          type: `${PROBLEM_TYPE_BASE}not-found`,
          title: 'Not Found',
          status: 404,
          detail: 'This product could not be found.',
        });
      }
      // and beta sees its own
      expect((await call('GET', `/products/${betaTwin.uuid}`, { channel: 'beta-shop', token: beta.shop!.token })).status).toBe(200);
    });

    it('GET /products/validate-skus is the validate-skus path without its method (405, Allow: POST), as OpenAPI matches concrete paths first; a bad percent-escape is a 404', async () => {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await edge.call(method, '/v1/channels/acme-shop/products/validate-skus', { token: acme.shop!.token });
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('POST');
        // The document has no schema of its own for a 405 (its description promises one): the whole body here.
        if (method === 'GET') expect(res.body).toEqual({ type: `${PROBLEM_TYPE_BASE}method-not-allowed`, title: 'Method Not Allowed', status: 405, detail: expect.any(String) });
      }
      const malformed = await edge.call('GET', '/v1/channels/acme-shop/products/%E0%A4%A', { token: acme.shop!.token });
      expect(malformed.status).toBe(404);
      expect(malformed.body).toMatchObject({ status: 404, title: 'Not Found', detail: 'This product could not be found.' });
    });

    it('HEAD answers as GET does, without a body', async () => {
      for (const path of ['/products', `/products/${live[0]!.uuid}`, '/shipping-methods', '/']) {
        const get = await edge.call('GET', `/v1/channels/acme-shop${path}`, { token: acme.shop!.token });
        const head = await edge.call('HEAD', `/v1/channels/acme-shop${path}`, { token: acme.shop!.token });
        expect(head.status).toBe(get.status);
        expect(head.status).toBe(200);
        expect(head.body).toBe('');
        expect(head.headers['content-type']).toBe(get.headers['content-type']);
        expect(head.headers['service-api-version']).toBe('1.2.0');
      }
      // A problem too: the GET's status and headers, Content-Length included.
      const missingGet = await edge.call('GET', `/v1/channels/acme-shop/products/${UNKNOWN}`, { token: acme.shop!.token });
      const missingHead = await edge.call('HEAD', `/v1/channels/acme-shop/products/${UNKNOWN}`, { token: acme.shop!.token });
      expect(missingHead.status).toBe(404);
      expect(missingHead.headers['content-type']).toBe(missingGet.headers['content-type']);
      expect(missingHead.headers['content-length']).toBe(missingGet.headers['content-length']);
    });
  });

  describe('POST /products/validate-skus', () => {
    it('answers each SKU in request order: matched with the product uuid and state, or not', async () => {
      const skus = ['ACME-4', 'NOPE', 'ACME-1', 'BETA-ONLY', 'ACME-GONE', 'acme-1', 'ACME-3', 'ACME-1'];
      const res = await call('POST', '/products/validate-skus', { body: { skus } });
      expect(res.status).toBe(200);
      const find = (sku: string) => live.find((p) => p.sku === sku)!;
      const match = (sku: string) => ({ sku, matched: true, productUuid: find(sku).uuid, activeState: find(sku).activeState });
      const miss = (sku: string) => ({ sku, matched: false, productUuid: null, activeState: null });
      expect(res.body).toEqual({
        data: [
          match('ACME-4'),
          miss('NOPE'),
          // acme's product, never beta's product with the same SKU
          match('ACME-1'),
          // another team's SKU, a deleted product's SKU, another case: no match
          miss('BETA-ONLY'),
          miss('ACME-GONE'),
          miss('acme-1'),
          { sku: 'ACME-3', matched: true, productUuid: find('ACME-3').uuid, activeState: 'inactive' },
          // a repeated SKU is answered again
          match('ACME-1'),
        ],
      });
      const theirs = await call('POST', '/products/validate-skus', { channel: 'beta-shop', token: beta.shop!.token, body: { skus: ['ACME-1', 'ACME-4'] } });
      expect(theirs.body.data).toEqual([
        { sku: 'ACME-1', matched: true, productUuid: betaTwin.uuid, activeState: 'active' },
        miss('ACME-4'),
      ]);
    });

    it('takes 1000 SKUs', async () => {
      const skus = Array.from({ length: 1000 }, (_, i) => (i === 999 ? 'ACME-7' : `X-${i}`));
      const res = await call('POST', '/products/validate-skus', { body: { skus } });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1000);
      expect(res.body.data[999]).toMatchObject({ sku: 'ACME-7', matched: true });
      expect(res.body.data.filter((v: { matched: boolean }) => v.matched)).toHaveLength(1);
    });

    it.each([
      ['no skus member', {}, 'skus'],
      ['skus not an array', { skus: 'ACME-1' }, 'skus'],
      ['an empty list', { skus: [] }, 'skus'],
      ['1001 SKUs', { skus: Array.from({ length: 1001 }, (_, i) => `X-${i}`) }, 'skus'],
      ['an empty SKU', { skus: ['ACME-1', ''] }, 'skus[1]'],
      ['a SKU over 255 characters', { skus: ['x'.repeat(256)] }, 'skus[0]'],
      ['a SKU that is not a string', { skus: ['A', 7] }, 'skus[1]'],
    ])('%s answers 422 naming %s', async (_name, body, property) => {
      const res = await call('POST', '/products/validate-skus', { body });
      expect(res.status).toBe(422);
      expect(res.body.violations[0].property).toBe(property);
    });

    it('takes the largest body the limits allow, written all in escapes (1000 SKUs of 255 astral characters: 3 MiB); a body over 4 MiB answers 422 naming body', async () => {
      // JSON.stringify writes the emoji as UTF-8: escape it by hand, as some clients do.
      const escaped = (skus: string[]) => JSON.stringify({ skus }).replace(/[\u{10000}-\u{10FFFF}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}\\u${c.charCodeAt(1).toString(16)}`);
      const skus = Array.from({ length: 1000 }, (_, i) => `${'😀'.repeat(250)}${String(i).padStart(5, '0')}`);
      const body = escaped(skus);
      expect(body.length).toBeGreaterThan(3_000_000);
      const res = await edge.call('POST', '/v1/channels/acme-shop/products/validate-skus', { token: acme.shop!.token, rawBody: body });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1000);
      expect(res.body.data[7].sku).toBe(skus[7]);
      const over = await edge.call('POST', '/v1/channels/acme-shop/products/validate-skus', { token: acme.shop!.token, rawBody: `${body}${' '.repeat(1_200_000)}` });
      expect(over.status).toBe(422);
      expect(over.body.violations).toEqual([{ property: 'body', message: 'The request body is too large.' }]);
    });

    it('refuses a body of too many values (compressed or not), nested too deep, or with a member twice, before reading it: 422 naming the body or the member', async () => {
      const url = '/v1/channels/acme-shop/products/validate-skus';
      // 60 000 tiny values: well under 4 MiB, seconds of one thread to parse and check were it read.
      const many = JSON.stringify({ skus: Array(60_000).fill('A') });
      const tooMany = { property: 'body', message: 'The request body holds more than 50000 JSON values.' };
      expect((await edge.call('POST', url, { token: acme.shop!.token, rawBody: many })).body.violations).toEqual([tooMany]);
      // Compressed, it is counted as inflated.
      const gzipped = await edge.call('POST', url, { token: acme.shop!.token, rawBody: gzipSync(many), headers: { 'content-encoding': 'gzip' } });
      expect([gzipped.status, gzipped.body.violations]).toEqual([422, [tooMany]]);
      const deep = await edge.call('POST', url, { token: acme.shop!.token, rawBody: `{"skus":["A"],"x":${'['.repeat(40)}${']'.repeat(40)}}` });
      expect([deep.status, deep.body.violations]).toEqual([422, [{ property: `x${'[0]'.repeat(31)}`, message: 'Nests deeper than 32 levels.' }]]);
      const twice = await edge.call('POST', url, { token: acme.shop!.token, rawBody: '{"skus":["ACME-1"],"skus":["NOPE"]}' });
      expect([twice.status, twice.body.violations]).toEqual([422, [{ property: 'skus', message: 'This member is given twice; give it once.' }]]);
      // gzip within the limits is read as any body.
      const small = await edge.call('POST', url, { token: acme.shop!.token, rawBody: gzipSync(JSON.stringify({ skus: ['ACME-1'] })), headers: { 'content-encoding': 'gzip' } });
      expect([small.status, small.body.data.length]).toEqual([200, 1]);
    });

    it('a SKU of exactly 255 characters is accepted', async () => {
      const res = await call('POST', '/products/validate-skus', { body: { skus: ['x'.repeat(255)] } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([{ sku: 'x'.repeat(255), matched: false, productUuid: null, activeState: null }]);
    });
  });

  describe('GET /shipping-methods', () => {
    it('lists the team active methods, most preferred first', async () => {
      const res = await call('GET', '/shipping-methods');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [
          {
            code: 'economy',
            name: 'Economy post',
            carrier: 'Royal Mail',
            serviceLevel: 'economy',
            tracked: false,
            countryCodes: [],
            minDeliveryDays: null,
            maxDeliveryDays: null,
          },
          {
            code: 'express',
            name: 'Express 24',
            carrier: 'DPD',
            serviceLevel: 'express',
            tracked: true,
            countryCodes: ['GB'],
            minDeliveryDays: 1,
            maxDeliveryDays: 1,
          },
        ],
      });
    });

    it('another team sees only its own', async () => {
      const res = await call('GET', '/shipping-methods', { channel: 'beta-shop', token: beta.shop!.token });
      expect(res.body.data.map((m: { code: string }) => m.code)).toEqual(['beta-post']);
    });
  });

  describe('authentication applies to every new endpoint', () => {
    it.each([
      ['GET', '/products'],
      ['GET', `/products/${UNKNOWN}`],
      ['POST', '/products/validate-skus'],
      ['GET', '/stock-levels'],
      ['GET', '/shipping-methods'],
    ])('%s %s: 401 without a token, 404 with a token of another channel', async (method, path) => {
      const body = method === 'POST' ? { skus: ['ACME-1'] } : undefined;
      const anonymous = await edge.call(method, `/v1/channels/acme-shop${path}`, body ? { body } : {});
      sys.contract.check(method, templateOf(path), anonymous);
      expect(anonymous.status).toBe(401);
      const sibling = await edge.call(method, `/v1/channels/acme-other${path}`, { token: acme.shop!.token, ...(body ? { body } : {}) });
      sys.contract.check(method, templateOf(path), sibling);
      expect(sibling.status).toBe(404);
      const otherTeam = await edge.call(method, `/v1/channels/beta-shop${path}`, { token: acme.shop!.token, ...(body ? { body } : {}) });
      sys.contract.check(method, templateOf(path), otherTeam);
      expect(otherTeam.status).toBe(401);
    });
  });
});
