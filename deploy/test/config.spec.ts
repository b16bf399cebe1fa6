// The deployment against the code: every variable a service's config reads is provided (from a
// ConfigMap or a Secret reference, never a literal secret) with a value the config accepts; every
// topic the code uses has its KafkaTopic; every schema its Postgres role; the gateway gets the
// committed supergraph, which must equal a fresh composition.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ALL_TOPICS } from '@pf/platform/events/topics';
import {
  CONFIG_SHAPES,
  OVERLAYS,
  ROOT,
  SERVICE_DIRS,
  configMapByBaseName,
  containerEnv,
  deployableWorkspaces,
  isSecretVariable,
  mainContainer,
  named,
  ofKind,
  readRepoFile,
  render,
  requiredVariables,
} from './support/deploy';

const SERVICES = Object.keys(SERVICE_DIRS);

/** Topic names the code uses: the shared list plus any literal a service passes as a topic. */
function topicsUsedInCode(): string[] {
  const found = new Set<string>(ALL_TOPICS);
  const roots = ['libs/platform/src', 'gateway/src', ...readdirSync(path.join(ROOT, 'services')).map((s) => `services/${s}/src`)];
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) return entry === 'generated' || entry === 'testing' ? [] : walk(full);
      return /\.ts$/.test(entry) && !/\.spec\.ts$/.test(entry) ? [full] : [];
    });
  for (const root of roots.filter((r) => existsSync(path.join(ROOT, r)))) {
    for (const file of walk(path.join(ROOT, root))) {
      const text = readFileSync(file, 'utf8');
      // `topic: 'x.y'` and `topics: ['x.y', ...]` with literal names (TOPICS.* are in ALL_TOPICS).
      for (const m of text.matchAll(/\btopics?\s*:\s*(\[[^\]]*\]|'[^']*'|"[^"]*")/g)) {
        for (const lit of m[1]!.matchAll(/['"]([a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+)['"]/g)) found.add(lit[1]!);
      }
    }
  }
  return [...found].sort();
}

test('every deployable workspace (services/*, gateway) has its config shape, definition, Dockerfile and kustomize base', () => {
  const workspaces = deployableWorkspaces();
  expect(workspaces.sort()).toEqual(Object.values(SERVICE_DIRS).sort());
  for (const svc of SERVICES) {
    expect(CONFIG_SHAPES[svc]).toBeDefined();
    expect(existsSync(path.join(ROOT, 'deploy', 'docker', `${svc}.Dockerfile`))).toBe(true);
    expect(existsSync(path.join(ROOT, 'deploy', 'k8s', 'base', svc, 'kustomization.yaml'))).toBe(true);
  }
});

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  test.each(SERVICES)('%s: every variable its config reads is in its ConfigMaps or Secret references', (svc) => {
    const objects = render(overlay);
    const env = containerEnv(objects, mainContainer(named(objects, 'Deployment', svc)));
    expect(env.missingConfigMaps).toEqual([]);
    // envFrom secretRef would hide which variables a Secret provides.
    expect(env.secretRefs).toEqual([]);
    const missing = Object.keys(CONFIG_SHAPES[svc]!).filter((key) => !env.vars.has(key));
    if (missing.length > 0) {
      throw new Error(
        `${svc} reads ${missing.join(', ')} but its Deployment does not provide ${missing.length > 1 ? 'them' : 'it'}: add ` +
          `KEY=value (empty for the code's default) to deploy/k8s/base/${svc}/config.env, or a secretKeyRef in its deployment.yaml if it is a secret.`,
      );
    }
  });

  test.each(SERVICES)('%s: configured values are accepted by its config; required ones are always set', (svc) => {
    const objects = render(overlay);
    const shape = CONFIG_SHAPES[svc]!;
    const env = containerEnv(objects, mainContainer(named(objects, 'Deployment', svc)));
    const rejected: string[] = [];
    for (const [key, source] of env.vars) {
      if (!(key in shape) || (source.from !== 'configMap' && source.from !== 'value')) continue;
      if (source.value.includes('$(')) continue; // composed from other variables (DATABASE_URL)
      const value = source.value.trim() === '' ? undefined : source.value;
      const parsed = shape[key]!.safeParse(value);
      if (!parsed.success) rejected.push(`${key}=${source.value}: ${parsed.error.issues[0]?.message}`);
    }
    expect(rejected).toEqual([]);
    for (const key of requiredVariables(shape)) {
      const source = env.vars.get(key)!;
      const set = source.from === 'secret' ? !source.optional : source.from !== 'other' && source.value.trim() !== '';
      expect({ key, set }).toEqual({ key, set: true });
    }
    expect(env.vars.get('NODE_ENV')).toMatchObject({ value: 'production' });
  });

  test.each(SERVICES)('%s: secrets come only from Secret references, never from a ConfigMap or a literal', (svc) => {
    const objects = render(overlay);
    const env = containerEnv(objects, mainContainer(named(objects, 'Deployment', svc)));
    const problems: string[] = [];
    for (const [key, source] of env.vars) {
      if (!isSecretVariable(key) && key !== 'PGPASSWORD') continue;
      if (source.from === 'secret') continue;
      if (source.from === 'configMap' && source.value.trim() === '') continue; // explicitly unset
      if (source.from === 'value') {
        // Only a composition of Secret-backed variables, e.g. postgresql://role:$(PGPASSWORD)@host/db.
        const refs = [...source.value.matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1]!);
        if (refs.length > 0 && refs.every((r) => env.vars.get(r)?.from === 'secret') && !/:[^$/@]+@/.test(source.value)) continue;
      }
      problems.push(`${key} comes from ${source.from}`);
    }
    expect(problems).toEqual([]);
  });

  test('the container port is the port the service listens on', () => {
    const objects = render(overlay);
    for (const svc of SERVICES) {
      const c = mainContainer(named(objects, 'Deployment', svc));
      const env = containerEnv(objects, c);
      // Set explicitly, so the port never depends on a default hidden in the code.
      const port = Number((env.vars.get('PORT') as { value?: string } | undefined)?.value);
      expect({ svc, port: c.ports[0].containerPort }).toEqual({ svc, port });
    }
  });

  test('a KafkaTopic for every topic the code uses (with the deployment prefix), and none for topics it does not', () => {
    const objects = render(overlay);
    const prefix = configMapByBaseName(objects, 'pf-common')!.data!.KAFKA_TOPIC_PREFIX!;
    expect(prefix).toBeDefined();
    const declared = ofKind(objects, 'KafkaTopic').map((t) => t.spec.topicName ?? t.metadata.name);
    const wanted = topicsUsedInCode().map((t) => prefix + t);
    const missing = wanted.filter((t) => !declared.includes(t));
    if (missing.length > 0) throw new Error(`no KafkaTopic for ${missing.join(', ')}: add one to deploy/k8s/base/platform/topics.yaml (and deploy/compose/create-topics.sh)`);
    expect(declared.filter((t) => !wanted.includes(t))).toEqual([]);
    // Every service that uses Kafka reaches the cluster's bootstrap Service.
    const kafka = ofKind(objects, 'Kafka')[0]!;
    const listener = kafka.spec.kafka.listeners.find((l: { tls: boolean }) => !l.tls);
    expect(configMapByBaseName(objects, 'pf-common')!.data!.KAFKA_BROKERS).toBe(`${kafka.metadata.name}-kafka-bootstrap:${listener.port}`);
  });

  test('the gateway mounts the committed supergraph from its generated ConfigMap', () => {
    const objects = render(overlay);
    const gateway = named(objects, 'Deployment', 'gateway');
    const c = mainContainer(gateway);
    const supergraphPath = (containerEnv(objects, c).vars.get('SUPERGRAPH_PATH') as { value: string }).value;
    const mount = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === path.posix.dirname(supergraphPath));
    expect(mount).toBeDefined();
    const volume = gateway.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
    const configMap = ofKind(objects, 'ConfigMap').find((cm) => cm.metadata.name === volume.configMap.name)!;
    expect(configMap.metadata.name).toMatch(/^gateway-supergraph-[a-z0-9]{10}$/);
    expect(configMap.data![path.posix.basename(supergraphPath)]).toBe(readRepoFile('gateway/supergraph.graphql'));
  });
});

test('the committed supergraph equals a fresh composition of the subgraphs (compose-supergraph --check)', () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'compose-supergraph.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect({ status: run.status, stderr: run.stderr.split('\n').filter((l) => !l.startsWith('composition hint')).join('\n').trim() }).toEqual({ status: 0, stderr: '' });
});

test('the laptop topic list (deploy/compose/create-topics.sh) matches the KafkaTopics: names, partitions, cleanup policy', () => {
  const objects = render('prod');
  const script = readRepoFile('deploy/compose/create-topics.sh');
  const laptop = [...script.matchAll(/^topic (\S+) (\d+) (\S+)$/gm)].map((m) => ({ name: m[1], partitions: Number(m[2]), policy: m[3] }));
  const cluster = ofKind(objects, 'KafkaTopic').map((t) => ({ name: t.spec.topicName, partitions: t.spec.partitions, policy: t.spec.config['cleanup.policy'] }));
  const byName = (a: { name?: string }, b: { name?: string }) => a.name!.localeCompare(b.name!);
  expect(laptop.sort(byName)).toEqual(cluster.sort(byName));
});
