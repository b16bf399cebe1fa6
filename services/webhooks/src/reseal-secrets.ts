import { env, loadConfig } from '@pf/platform/config';
import { createLogger } from '@pf/platform/logging';
import { loadWebhooksConfig } from './config';
import { SecretBox } from './domain/secrets';
import { createQueuePool } from './repositories/db';
import { resealSecrets } from './use-cases/reseal-secrets';

/**
 * `node dist/reseal-secrets.js` with the service's environment (in Kubernetes: `kubectl exec` in a
 * running webhooks pod after its rollout with the new key): seals every webhook signing secret
 * again with WEBHOOK_SECRET_KEY, opening each with the key of the ring its row names. Afterwards
 * the keys in WEBHOOK_SECRET_PREVIOUS_KEYS open nothing and can go. Safe to run again. Exits 1
 * when a secret opened with no key (named in the log), so a key still needed is not dropped.
 */
async function main(): Promise<void> {
  const logger = createLogger('webhooks-reseal-secrets');
  const { DATABASE_URL, JWT_VERIFY_KEY } = loadConfig({ DATABASE_URL: env.string(), JWT_VERIFY_KEY: env.optionalString() });
  const config = loadWebhooksConfig(process.env, JWT_VERIFY_KEY ?? '');
  const pool = createQueuePool(DATABASE_URL, 2, logger);
  try {
    const outcome = await resealSecrets(pool, new SecretBox(config.secretKey, config.previousSecretKeys), logger);
    logger.info({ ...outcome, currentKeyId: config.secretKey.id }, 'webhook secrets re-sealed');
    if (outcome.unopenable.length > 0) process.exitCode = 1;
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
