import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { KafkaEventBus } from '@pf/platform/bus/kafka';
import { ProductCreated, type ProductState } from '@pf/platform/events/catalog';
import { createLogger } from '@pf/platform/logging';
import { outgoing } from '@pf/platform/outbox/outbox';
import { deleteTestTopics, eventually, freePort, testInfra, uniqueSuffix } from '@pf/platform/testing/infra';
import { backOffice, startStock, warehouse, type StockHarness } from './harness';

/**
 * A process started while the broker cannot be reached (a crash or a deployment during an outage)
 * starts and serves all the same; its consumers join once the broker is back. It used to die at
 * start: its consumers' first connection gave up (KafkaJSNumberOfRetriesExceeded).
 */
describe('a stock service started while the broker is unreachable', () => {
  const logger = createLogger('stock-outage-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const prefix = `t${uniqueSuffix()}.`;
  const [brokerHost, brokerPort] = testInfra.kafkaBrokers[0]!.split(':') as [string, string];
  /** The service's only way to the broker: closed first (connections refused), opened later. */
  let gate: net.Server | undefined;
  let gatePort: number;
  let h: StockHarness;
  let catalogBus: KafkaEventBus;

  beforeAll(async () => {
    gatePort = await freePort();
  });

  afterAll(async () => {
    await catalogBus?.close();
    await h?.close();
    await new Promise((resolve) => (gate ? gate.close(resolve) : resolve(undefined)));
    await deleteTestTopics(prefix);
  }, 30_000);

  it('starts, serves, and applies catalog events once the broker can be reached', async () => {
    // The bootstrap address is the gate; once through it, the client talks to the broker it advertises.
    const bus = new KafkaEventBus({ brokers: [`127.0.0.1:${gatePort}`], clientId: 'stock-outage', topicPrefix: prefix, logger, handlerRetry: { initialDelayMs: 50, maxDelayMs: 200 } });
    h = await startStock({ bus, startBackgroundWork: true });
    // It serves meanwhile.
    expect(await warehouse(h, 'outage', 'a', { countryCode: 'GB' })).toEqual(expect.any(String));
    expect((await h.ok(backOffice('outage'), '{ warehouses { code } }')).warehouses).toEqual([{ code: 'a' }]);

    gate = net.createServer((client) => {
      const upstream = net.connect(Number(brokerPort), brokerHost);
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((resolve) => gate!.listen(gatePort, '127.0.0.1', resolve));

    catalogBus = new KafkaEventBus({ brokers: testInfra.kafkaBrokers, clientId: 'catalog-outage', topicPrefix: prefix, logger });
    const product: ProductState = {
      productUuid: randomUUID(),
      teamCode: 'outage',
      sku: 'OUT-1',
      name: 'Outage mug',
      activeState: 'active',
      podEnabled: false,
      podApproved: false,
      deleted: false,
      version: 1,
    };
    await catalogBus.publish([outgoing(ProductCreated, ProductCreated.create(product.productUuid, product))]);
    await eventually(async () => {
      const { rows } = await h.pool.query('SELECT 1 FROM stock.product WHERE uuid = $1', [product.productUuid]);
      return rows.length === 1 ? true : undefined;
    }, 90_000, 200);
  }, 150_000);
});
