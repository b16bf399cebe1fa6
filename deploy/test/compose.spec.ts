// deploy/compose.yaml, read with the yaml package (no container engine here): it parses, names
// every service with its migration one-shot, pins its infrastructure images, and wires each
// service as production does (Kafka bus, Postgres role, Redis, every required variable).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_SHAPES, ROOT, SERVICE_DIRS, imageTag, parseYamlStream, requiredVariables } from './support/deploy';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  healthcheck?: unknown;
}

const COMPOSE = path.join(ROOT, 'deploy', 'compose.yaml');
const compose = parseYamlStream(readFileSync(COMPOSE, 'utf8'), 'deploy/compose.yaml')[0] as { services: Record<string, ComposeService> };
const services = compose.services;
const SERVICES = Object.keys(SERVICE_DIRS);
const withMigrations = SERVICES.filter((s) => existsSync(path.join(ROOT, SERVICE_DIRS[s]!, 'migrations')));
const INFRA = ['postgres', 'kafka', 'kafka-topics', 'redis'];
const env = (name: string) => Object.fromEntries(Object.entries(services[name]!.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));
/** Compose substitutes ${VAR:-default}; the default is what a plain `docker compose up` gets. */
const substituted = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

test('parses and names every service, its migration one-shot, and the infrastructure', () => {
  expect(Object.keys(services).sort()).toEqual([...SERVICES, ...withMigrations.map((s) => `${s}-migrate`), ...INFRA].sort());
});

test('infrastructure images are pinned (never latest); Kafka runs in KRaft mode', () => {
  for (const name of INFRA) {
    const { tag } = imageTag(services[name]!.image!);
    expect({ name, tag: Boolean(tag) && tag !== 'latest' && /\d/.test(tag!) }).toEqual({ name, tag: true });
  }
  const kafka = env('kafka');
  expect(kafka.KAFKA_PROCESS_ROLES!.split(',').sort()).toEqual(['broker', 'controller']);
  expect(Object.keys(kafka).some((k) => k.includes('ZOOKEEPER'))).toBe(false);
});

test.each(SERVICES)('%s: built from its Dockerfile, production wiring, every required variable set to a value its config accepts', (svc) => {
  const s = services[svc]!;
  expect(s.build).toEqual({ context: '..', dockerfile: `deploy/docker/${svc}.Dockerfile` });
  expect(existsSync(path.join(ROOT, s.build!.dockerfile))).toBe(true);
  const vars = env(svc);
  const shape = CONFIG_SHAPES[svc]!;
  expect(vars.NODE_ENV).toBe('production');
  if ('EVENT_BUS' in shape) expect(vars.EVENT_BUS).toBe('kafka');
  if ('RATE_LIMIT_STORE' in shape) expect(vars.RATE_LIMIT_STORE).toBe('redis');
  if (withMigrations.includes(svc)) expect(vars.DATABASE_URL).toMatch(new RegExp(`^postgresql://${svc}:[^@]+@postgres:5432/`));
  expect(requiredVariables(shape).filter((k) => !vars[k])).toEqual([]);
  const rejected = Object.entries(vars)
    .filter(([k]) => k in shape)
    .filter(([k, v]) => !shape[k]!.safeParse(substituted(v)).success)
    .map(([k, v]) => `${k}=${v}`);
  expect(rejected).toEqual([]);
  // Direct calls go to services that exist here (PUBLIC_BASE_URL is what clients see, not a call).
  for (const [, value] of Object.entries(vars).filter(([k, v]) => !k.startsWith('PUBLIC_') && /^(https?|redis|postgresql):\/\//.test(v))) {
    expect(Object.keys(services)).toContain(new URL(substituted(value)).hostname);
  }
});

test.each(withMigrations)('%s: migrations run first, as a one-shot of the same image, and the service waits for them', (svc) => {
  const migrate = services[`${svc}-migrate`]!;
  expect(migrate.command).toEqual(['node', 'dist/migrate.js']);
  expect(migrate.image).toBe(services[svc]!.image);
  expect(migrate.build).toEqual(services[svc]!.build);
  expect(env(`${svc}-migrate`).DATABASE_URL).toBe(env(svc).DATABASE_URL);
  expect(migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
  expect(services[svc]!.depends_on?.[`${svc}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
});

test('services on Kafka start after the topics exist; files mounted into containers exist; Postgres gets the cluster\'s bootstrap SQL', () => {
  for (const svc of SERVICES.filter((s) => 'KAFKA_BROKERS' in CONFIG_SHAPES[s]! && s !== 'gateway')) {
    const waitsForTopics = JSON.stringify(services[svc]!.depends_on ?? {}).includes('kafka-topics') ||
      Object.keys(services[svc]!.depends_on ?? {}).some((d) => JSON.stringify(services[d]?.depends_on ?? {}).includes('kafka-topics'));
    expect({ svc, waitsForTopics }).toEqual({ svc, waitsForTopics: true });
  }
  const mounts = Object.values(services).flatMap((s) => (s.volumes ?? []).filter((v) => v.startsWith('./')).map((v) => v.split(':')[0]!));
  for (const m of mounts) expect({ m, exists: existsSync(path.join(ROOT, 'deploy', m)) }).toEqual({ m, exists: true });
  expect(mounts).toContain('./k8s/base/platform/postgres-bootstrap.sql');
});
