import path from 'node:path';
import type { JwtSignOptions } from '@pf/platform/identity';
import { serviceContractChecks } from '@pf/platform/testing/service-contract';
import { ordersService } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'orders-test-secret-orders-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('orders service process', () => {
  serviceContractChecks(ordersService, {
    jwt,
    migrations: {
      schema: 'orders',
      all: ['platform/0001_outbox_inbox.sql', 'service/0001_orders.sql', 'service/0002_stock_figures.sql', 'service/0003_stock_demand.sql', 'service/0004_stock_step.sql', 'service/0005_product_state_at.sql', 'service/0006_stock_step_change.sql', 'service/0007_merchant_order_number.sql', 'service/0008_stock_step_fence.sql'],
      prismaSchemaPath: path.resolve(__dirname, '../prisma/schema.prisma'),
    },
  });
});
