// Generates each service's Prisma client from its prisma/schema.prisma.
// The Prisma CLI wants a schema-engine binary it cannot download on our build machines; generate
// does not use it, so we point it at a placeholder that fails loudly if anything ever calls it.
// Migrations are plain SQL files applied by the platform's own migrate step.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const placeholder = path.join(root, '.cache', 'no-schema-engine');
if (!existsSync(placeholder)) {
  mkdirSync(path.dirname(placeholder), { recursive: true });
  writeFileSync(placeholder, '#!/bin/sh\necho "the Prisma schema engine is not used: migrations are plain SQL" >&2\nexit 1\n');
  chmodSync(placeholder, 0o755);
}
const services = ['accounts', 'catalog', 'stock', 'orders', 'webhooks'];
for (const service of services) {
  const schema = path.join(root, 'services', service, 'prisma', 'schema.prisma');
  if (!existsSync(schema)) continue;
  execFileSync(path.join(root, 'node_modules', '.bin', 'prisma'), ['generate', '--schema', schema], {
    cwd: path.join(root, 'services', service),
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  console.log(`prisma client generated for ${service}`);
}
