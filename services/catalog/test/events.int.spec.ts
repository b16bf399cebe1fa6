import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ProductCreated, ProductDeleted, ProductUpdated, ShippingMethodChanged } from '@pf/platform/events/catalog';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { decodeEvent } from '@pf/platform/events/registry';
import { TOPICS } from '@pf/platform/events/topics';
import { createLogger } from '@pf/platform/logging';
import { deleteTestTopics, eventually, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { withClockAhead } from '@pf/platform/testing/clock';
import { CatalogUseCases, createPrismaClient } from '../src';
import {
  backOffice,
  CREATE_PRODUCT,
  CREATE_SHIPPING_METHOD,
  createProduct,
  DELETE_PRODUCT,
  DELETE_SHIPPING_METHOD,
  startCatalog,
  UPDATE_PRODUCT,
  UPDATE_SHIPPING_METHOD,
  type CatalogHarness,
  type OutboxRow,
} from './harness';

const summary = (rows: OutboxRow[]) => rows.map((r) => [r.topic, r.event_key, r.envelope.type, r.envelope.payload.version]);

describe('catalog events: outbox in the same transaction', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await startCatalog();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('every product change writes the full state with a version one higher, keyed by the product uuid', async () => {
    const seq = await h.lastSeq();
    const p = await createProduct(h, 'evt', { sku: 'E-1', name: 'Poster' });
    await h.ok(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { activeState: 'pre-order' } });
    await h.ok(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { podEnabled: true, podApproved: true } });
    await h.ok(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { dimensions: { weight: { measurement: 250, unit: 'g' } } } });
    await h.ok(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { sku: null } });
    await h.ok(backOffice('evt'), DELETE_PRODUCT, { uuid: p.uuid });
    const rows = await h.outboxAfter(seq);
    expect(summary(rows)).toEqual([
      [TOPICS.products, p.uuid, ProductCreated.type, 1],
      [TOPICS.products, p.uuid, ProductUpdated.type, 2],
      [TOPICS.products, p.uuid, ProductUpdated.type, 3],
      [TOPICS.products, p.uuid, ProductUpdated.type, 4],
      [TOPICS.products, p.uuid, ProductUpdated.type, 5],
      [TOPICS.products, p.uuid, ProductDeleted.type, 6],
    ]);
    const base = { productUuid: p.uuid, teamCode: 'evt', name: 'Poster', deleted: false };
    expect(rows.map((r) => r.envelope.payload)).toEqual([
      { ...base, sku: 'E-1', activeState: 'active', podEnabled: false, podApproved: false, dimensions: null, version: 1 },
      { ...base, sku: 'E-1', activeState: 'pre-order', podEnabled: false, podApproved: false, dimensions: null, version: 2 },
      { ...base, sku: 'E-1', activeState: 'pre-order', podEnabled: true, podApproved: true, dimensions: null, version: 3 },
      {
        ...base,
        sku: 'E-1',
        activeState: 'pre-order',
        podEnabled: true,
        podApproved: true,
        dimensions: { weight: { measurement: 250, unit: 'g' }, length: null, width: null, depth: null },
        version: 4,
      },
      {
        ...base,
        sku: null,
        activeState: 'pre-order',
        podEnabled: true,
        podApproved: true,
        dimensions: { weight: { measurement: 250, unit: 'g' }, length: null, width: null, depth: null },
        version: 5,
      },
      {
        ...base,
        sku: null,
        activeState: 'pre-order',
        podEnabled: true,
        podApproved: true,
        dimensions: { weight: { measurement: 250, unit: 'g' }, length: null, width: null, depth: null },
        deleted: true,
        version: 6,
      },
    ]);
    // Each row is a valid envelope of its registered definition, as a consumer will decode it.
    for (const row of rows) {
      expect(decodeEvent(JSON.stringify(row.envelope))).toMatchObject({ aggregateType: 'product', aggregateId: p.uuid, schemaVersion: 1 });
    }
    // The version in the events is the version of the row.
    const { rows: stored } = await h.pool.query('SELECT version FROM catalog.product WHERE uuid = $1', [p.uuid]);
    expect(stored).toEqual([{ version: 6 }]);
  });

  it('product events are stamped in the order of the changes, not by the clock of the replica that made each (a SKU passing on)', async () => {
    const a = await createProduct(h, 'clk', { sku: 'CLK-1', name: 'Old' });
    const seq = await h.lastSeq();
    // A replica whose clock runs an hour ahead deletes A, freeing its SKU...
    const prisma = createPrismaClient(h.db.url, 2);
    try {
      const ahead = new CatalogUseCases({ prisma });
      await withClockAhead(3_600_000, () => ahead.deleteProduct(backOffice('clk'), a.uuid));
    } finally {
      await prisma.$disconnect();
    }
    // ...then this one, on time, gives the SKU to B: B's state must read newer (the orders read model matches the newer).
    await createProduct(h, 'clk', { sku: 'CLK-1', name: 'New' });
    const [deleted, created] = await h.outboxAfter(seq);
    expect([deleted!.envelope.type, created!.envelope.type]).toEqual(['product.deleted', 'product.created']);
    expect(Date.parse(created!.envelope.occurredAt)).toBeGreaterThanOrEqual(Date.parse(deleted!.envelope.occurredAt));
  });

  it('every shipping method change writes its full state, keyed <team>:<code>', async () => {
    const seq = await h.lastSeq();
    const bo = backOffice('evt');
    await h.ok(bo, CREATE_SHIPPING_METHOD, { input: { code: 'express', name: 'Express', carrier: 'DPD', countryCodes: ['GB'] } });
    await h.ok(bo, UPDATE_SHIPPING_METHOD, { code: 'express', input: { active: false } });
    await h.ok(bo, DELETE_SHIPPING_METHOD, { code: 'express' });
    await h.ok(bo, CREATE_SHIPPING_METHOD, { input: { code: 'express', name: 'Express again', carrier: 'DPD' } });
    const rows = await h.outboxAfter(seq);
    expect(summary(rows)).toEqual([1, 2, 3, 4].map((v) => [TOPICS.shippingMethods, 'evt:express', ShippingMethodChanged.type, v]));
    expect(rows.map((r) => [r.envelope.payload.active, r.envelope.payload.deleted, r.envelope.payload.name])).toEqual([
      [true, false, 'Express'],
      [false, false, 'Express'],
      [false, true, 'Express'],
      [true, false, 'Express again'],
    ]);
    expect(rows[0]!.envelope.payload).toEqual({
      teamCode: 'evt',
      code: 'express',
      name: 'Express',
      carrier: 'DPD',
      active: true,
      deleted: false,
      version: 1,
      countryCodes: ['GB'],
      serviceLevel: 'standard',
      tracked: false,
      minDeliveryDays: null,
      maxDeliveryDays: null,
      priority: 100,
    });
  });

  it('a change that changes nothing, or is refused, writes no event', async () => {
    const p = await createProduct(h, 'evt', { sku: 'E-2', name: 'Same' });
    const seq = await h.lastSeq();
    await h.ok(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: 'Same', sku: 'E-2' } });
    await h.problem(backOffice('evt'), CREATE_PRODUCT, { input: { sku: 'E-2', name: 'Taken' } });
    await h.problem(backOffice('evt'), CREATE_PRODUCT, { input: { name: ' ' } });
    await h.problem(backOffice('evt'), UPDATE_PRODUCT, { uuid: p.uuid, input: { activeState: 'gone' } });
    await h.problem(backOffice('other'), DELETE_PRODUCT, { uuid: p.uuid });
    expect(await h.outboxAfter(seq)).toEqual([]);
  });

  it('when the event cannot be written, the change is not made either', async () => {
    const p = await createProduct(h, 'atomic', { sku: 'A-1', name: 'Atomic' });
    // Make the outbox refuse exactly this product's events: its change must roll back with them.
    await h.pool.query(`ALTER TABLE catalog.outbox_event ADD CONSTRAINT refuse_atomic CHECK (event_key <> '${p.uuid}') NOT VALID`);
    try {
      const res = await h.gql(backOffice('atomic'), UPDATE_PRODUCT, { uuid: p.uuid, input: { name: 'Changed' } });
      expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      expect((await h.gql(backOffice('atomic'), DELETE_PRODUCT, { uuid: p.uuid })).errors).toHaveLength(1);
    } finally {
      await h.pool.query('ALTER TABLE catalog.outbox_event DROP CONSTRAINT refuse_atomic');
    }
    const { rows } = await h.pool.query('SELECT name, version, deleted_at FROM catalog.product WHERE uuid = $1', [p.uuid]);
    expect(rows).toEqual([{ name: 'Atomic', version: 1, deleted_at: null }]);
  });
});

describe('catalog events: relayed to a real Kafka broker', () => {
  const logger = createLogger('catalog-events-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const prefix = `t${uniqueSuffix()}.`;
  const busOptions = { brokers: testInfra.kafkaBrokers, topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } };
  let h: CatalogHarness;
  let consumerBus: KafkaEventBus;

  beforeAll(async () => {
    h = await startCatalog({ bus: new KafkaEventBus({ ...busOptions, clientId: 'catalog-test' }), startBackgroundWork: true });
    consumerBus = new KafkaEventBus({ ...busOptions, clientId: 'catalog-test-consumer' });
  }, 60_000);

  afterAll(async () => {
    await consumerBus?.close();
    await h?.close();
    await deleteTestTopics(prefix);
  }, 30_000);

  it('product and shipping method events reach a consumer in order, with growing versions', async () => {
    const seen: { topic: string; event: EventEnvelope<any> }[] = [];
    const sub = await consumerBus.subscribe({
      groupId: 'catalog-events-test',
      topics: [TOPICS.products, TOPICS.shippingMethods],
      handler: async (event, meta) => {
        seen.push({ topic: meta.topic, event });
      },
    });
    try {
      const bo = backOffice('kafka');
      const p = await createProduct(h, 'kafka', { sku: 'K-1', name: 'Kafka poster' });
      await h.ok(bo, UPDATE_PRODUCT, { uuid: p.uuid, input: { podEnabled: true, podApproved: true } });
      await h.ok(bo, DELETE_PRODUCT, { uuid: p.uuid });
      await h.ok(bo, CREATE_SHIPPING_METHOD, { input: { code: 'standard', name: 'Standard', carrier: 'Royal Mail' } });

      const events = await eventually(() => (seen.length >= 4 ? seen : undefined), 30_000);
      const products = events.filter((e) => e.topic === TOPICS.products);
      expect(products.map((e) => [e.event.type, e.event.aggregateId, e.event.payload.version])).toEqual([
        ['product.created', p.uuid, 1],
        ['product.updated', p.uuid, 2],
        ['product.deleted', p.uuid, 3],
      ]);
      expect(products[1]!.event.payload).toMatchObject({ sku: 'K-1', podEnabled: true, podApproved: true, deleted: false });
      expect(products[2]!.event.payload).toMatchObject({ deleted: true });
      expect(events.filter((e) => e.topic === TOPICS.shippingMethods).map((e) => [e.event.aggregateId, e.event.payload.code])).toEqual([
        ['kafka:standard', 'standard'],
      ]);
      // The relay marked what it published.
      await eventually(async () => {
        const r = await h.pool.query('SELECT count(*)::int AS pending FROM catalog.outbox_event WHERE published_at IS NULL');
        return r.rows[0].pending === 0 ? true : undefined;
      });
    } finally {
      await sub.stop();
    }
  }, 60_000);
});
