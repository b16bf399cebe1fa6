import { randomUUID } from 'node:crypto';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ProductCreated, ProductDeleted, ProductUpdated, type ProductState } from '@pf/platform/events/catalog';
import type { EventEnvelope } from '@pf/platform/events/envelope';
import { TOPICS } from '@pf/platform/events/topics';
import { createLogger } from '@pf/platform/logging';
import { outgoing } from '@pf/platform/outbox/outbox';
import { deleteTestTopics, eventually, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { PRODUCT_READ_MODEL_CONSUMER } from '../src/use-cases/product-read-model';
import { channelOf, feedOf, lastOutboxSeq, outboxAfter, setStock, startStock, warehouse, type StockHarness } from './harness';

/**
 * The product read model fed over a real Kafka broker: the events are published exactly as the
 * catalog's outbox relay publishes them (same envelopes, topic and key), and the stock service's
 * own consumer applies them.
 */
describe('catalog product events over Kafka', () => {
  const logger = createLogger('stock-events-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const prefix = `t${uniqueSuffix()}.`;
  const busOptions = { brokers: testInfra.kafkaBrokers, topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } };
  let h: StockHarness;
  let catalogBus: KafkaEventBus;
  const team = 'kafka';

  beforeAll(async () => {
    h = await startStock({ bus: new KafkaEventBus({ ...busOptions, clientId: 'stock-test' }), startBackgroundWork: true });
    catalogBus = new KafkaEventBus({ ...busOptions, clientId: 'catalog-test' });
  }, 60_000);

  afterAll(async () => {
    await catalogBus?.close();
    await h?.close();
    await deleteTestTopics(prefix);
  }, 30_000);

  const publish = (...events: EventEnvelope<ProductState>[]) =>
    catalogBus.publish(events.map((e) => outgoing(e.type === 'product.created' ? ProductCreated : e.type === 'product.deleted' ? ProductDeleted : ProductUpdated, e)));

  async function stored(uuid: string) {
    const { rows } = await h.pool.query(
      `SELECT team_code, sku, active_state, pod_enabled, pod_approved, deleted, version, updated_at FROM stock.product WHERE uuid = $1`,
      [uuid],
    );
    return rows[0];
  }
  async function processed(eventId: string): Promise<boolean> {
    const { rows } = await h.pool.query('SELECT 1 FROM stock.inbox_event WHERE consumer = $1 AND event_id = $2', [PRODUCT_READ_MODEL_CONSUMER, eventId]);
    return rows.length === 1;
  }
  const state = (over: Partial<ProductState> = {}): ProductState => ({
    productUuid: randomUUID(),
    teamCode: team,
    sku: 'K-1',
    name: 'Kafka mug',
    activeState: 'active',
    podEnabled: false,
    podApproved: false,
    deleted: false,
    version: 1,
    ...over,
  });

  it('keeps the read model; a replayed event changes nothing and a stale version is ignored', async () => {
    const v1 = state();
    const created = ProductCreated.create(v1.productUuid, v1);
    await publish(created);
    expect(await eventually(async () => (await stored(v1.productUuid)) ?? undefined, 30_000)).toMatchObject({ team_code: team, sku: 'K-1', version: 1 });

    const v2 = { ...v1, sku: 'K-2', activeState: 'pre-order' as const, version: 2 };
    await publish(ProductUpdated.create(v1.productUuid, v2));
    const afterUpdate = await eventually(async () => {
      const row = await stored(v1.productUuid);
      return row.version === 2 ? row : undefined;
    }, 30_000);
    expect(afterUpdate).toMatchObject({ sku: 'K-2', active_state: 'pre-order' });

    // The very same envelope again (a relay retry), then an older state under a new id (reordering).
    const stale = ProductUpdated.create(v1.productUuid, { ...v1, sku: 'STALE', version: 1 });
    const seq = await lastOutboxSeq(h);
    await publish(created, stale);
    await eventually(async () => ((await processed(stale.id)) ? true : undefined), 30_000);
    expect(await stored(v1.productUuid)).toEqual(afterUpdate);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM stock.inbox_event WHERE event_id = ANY($1::uuid[])', [[created.id, stale.id]]);
    expect(rows[0].n).toBe(2); // the replay found its inbox row and did nothing
    expect(await outboxAfter(h, seq)).toEqual([]);
  }, 60_000);

  it('products arriving by events show in the feed with their stock; deletion removes them', async () => {
    const w = await warehouse(h, team, 'main');
    const p = state({ sku: null, activeState: 'inactive' });
    await publish(ProductCreated.create(p.productUuid, p));
    await eventually(async () => (await stored(p.productUuid)) ?? undefined, 30_000);
    await setStock(h, team, p.productUuid, w, 4);
    expect((await feedOf(h, channelOf(team))).get(p.productUuid)).toEqual({ sku: null, stock: 4 });

    const approved = { ...p, podEnabled: true, podApproved: true, version: 2 };
    await publish(ProductUpdated.create(p.productUuid, approved));
    await eventually(async () => ((await stored(p.productUuid)).version === 2 ? true : undefined), 30_000);
    expect((await feedOf(h, channelOf(team))).get(p.productUuid)).toEqual({ sku: null, stock: 10_004 });

    await publish(ProductDeleted.create(p.productUuid, { ...approved, deleted: true, version: 3 }));
    await eventually(async () => ((await stored(p.productUuid)).deleted ? true : undefined), 30_000);
    expect((await feedOf(h, channelOf(team))).has(p.productUuid)).toBe(false);
  }, 60_000);

  it('a product\'s figures leave through the outbox relay to Kafka, in order', async () => {
    const seen: EventEnvelope[] = [];
    const sub = await catalogBus.subscribe({
      groupId: 'stock-levels-test',
      topics: [TOPICS.stockLevels],
      handler: async (event) => {
        seen.push(event);
      },
    });
    try {
      const w = await warehouse(h, team, 'relay');
      const p = await h.product(team, { sku: 'RELAY' });
      await setStock(h, team, p.productUuid, w, 9);
      const [first, changed] = await eventually(() => {
        const mine = seen.filter((e) => e.aggregateId === p.productUuid);
        return mine.length > 1 ? mine : undefined;
      }, 30_000);
      // Its first figure (catalog), then the count (a stock movement, the one channels are pushed).
      expect(first).toMatchObject({ type: 'stock-level.revised', payload: { stock: 0, previousStock: null } });
      expect(changed).toMatchObject({
        type: 'stock-level.changed',
        aggregateType: 'product',
        payload: { teamCode: team, productUuid: p.productUuid, sku: 'RELAY', stock: 9, previousStock: 0 },
      });
    } finally {
      await sub.stop();
    }
  }, 60_000);
});
