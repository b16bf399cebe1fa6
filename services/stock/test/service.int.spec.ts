import path from 'node:path';
import type { JwtSignOptions } from '@pf/platform/identity';
import { serviceContractChecks } from '@pf/platform/testing/service-contract';
import { stockService } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'stock-test-secret-stock-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('stock service process', () => {
  serviceContractChecks(stockService, {
    jwt,
    migrations: {
      schema: 'stock',
      all: [
        'platform/0001_outbox_inbox.sql',
        'service/0001_stock.sql',
        'service/0002_stock_level_figure_index.sql',
        'service/0003_hold_returns.sql',
        'service/0004_expect_count.sql',
        'service/0005_order_fence.sql',
      ],
      prismaSchemaPath: path.resolve(__dirname, '../prisma/schema.prisma'),
    },
  });
});
