import path from 'node:path';
import { InMemoryEventBus } from '@pf/platform/bus/memory';
import type { JwtSignOptions } from '@pf/platform/identity';
import { createLogger } from '@pf/platform/logging';
import { serviceContractChecks } from '@pf/platform/testing/service-contract';
import { webhooksService } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'webhooks-test-secret-webhooks-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('webhooks service', () => {
  const served = serviceContractChecks(webhooksService, {
    jwt,
    migrations: {
      schema: 'webhooks',
      all: ['platform/0001_outbox_inbox.sql', 'service/0001_webhooks.sql', 'service/0002_queue_wakeup_off_the_event_path.sql', 'service/0003_delivery_log_retention.sql', 'service/0004_delivery_queue_order.sql', 'service/0005_open_resend_lookup.sql', 'service/0006_open_redelivery_lookup.sql'],
      prismaSchemaPath: path.resolve(__dirname, '../prisma/schema.prisma'),
    },
    sdlShows: ['registerWebhook'],
  });

  it('refuses at start, in production, the test-only allowances and a missing secret key', async () => {
    const logger = createLogger('webhooks-test', 'silent');
    const create = (env: NodeJS.ProcessEnv) => webhooksService.create({ databaseUrl: served().db.url, bus: new InMemoryEventBus(logger), jwt, logger, env });
    const key = Buffer.alloc(32, 1).toString('base64');
    await expect(create({ NODE_ENV: 'production' })).rejects.toMatchObject({ name: 'ConfigError', variables: ['WEBHOOK_SECRET_KEY'] });
    await expect(create({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' })).rejects.toMatchObject({
      variables: ['WEBHOOK_ALLOW_PRIVATE_RANGES'],
    });
    await expect(create({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key, WEBHOOK_EXTRA_CA: __filename })).rejects.toMatchObject({
      variables: ['WEBHOOK_EXTRA_CA'],
    });
  });
});
