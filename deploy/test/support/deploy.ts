import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { z } from 'zod';
import { processConfigShape } from '@pf/platform/service/process';
import { accountsConfigShape } from '../../../services/accounts/src/config';
import { catalogConfigShape } from '../../../services/catalog/src/config';
import { stockConfigShape } from '../../../services/stock/src/config';
import { ordersConfigShape } from '../../../services/orders/src/config';
import { webhooksConfigShape } from '../../../services/webhooks/src/config';
import { restEdgeConfigShape } from '../../../services/rest-edge/src/config';
import { gatewayConfigShape } from '../../../gateway/src/config';
import { readSubgraphList, subgraphUrlShape } from '../../../gateway/src/subgraphs';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** Service name -> workspace folder, for every deployable workspace (services/* and the gateway). */
export const SERVICE_DIRS: Record<string, string> = {
  accounts: 'services/accounts',
  catalog: 'services/catalog',
  stock: 'services/stock',
  orders: 'services/orders',
  webhooks: 'services/webhooks',
  gateway: 'gateway',
  'rest-edge': 'services/rest-edge',
};

type Shape = Record<string, z.ZodType>;

/**
 * Every environment variable each service's process reads, taken from the code's own config
 * shapes (the keys are the variable names), so a variable added there is a variable the
 * deployment must provide.
 */
export const CONFIG_SHAPES: Record<string, Shape> = {
  accounts: { ...processConfigShape, ...accountsConfigShape },
  catalog: { ...processConfigShape, ...catalogConfigShape },
  stock: { ...processConfigShape, ...stockConfigShape },
  orders: { ...processConfigShape, ...ordersConfigShape },
  webhooks: { ...processConfigShape, ...webhooksConfigShape },
  gateway: { ...processConfigShape, ...gatewayConfigShape, ...subgraphUrlShape(readSubgraphList()) },
  'rest-edge': { ...restEdgeConfigShape },
};

/** Variables with no default: the process refuses to start without them. */
export function requiredVariables(shape: Shape): string[] {
  return Object.keys(shape).filter((key) => !shape[key]!.safeParse(undefined).success);
}

/** The code's default of a variable, or undefined when it has none. */
export function defaultOf(shape: Shape, key: string): unknown {
  const parsed = shape[key]?.safeParse(undefined);
  return parsed?.success ? parsed.data : undefined;
}

/**
 * Variables whose values are credentials: they may come only from Secret references, never from
 * a ConfigMap or a literal in a manifest.
 */
export function isSecretVariable(name: string): boolean {
  return /_KEYS?$/.test(name) || /PASSWORD/.test(name) || name === 'DATABASE_URL' || name === 'REDIS_URL';
}

/** The workspace folders npm knows (root package.json), so a new service cannot slip past deploy/. */
export function deployableWorkspaces(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return pkg.workspaces.filter((w) => w.startsWith('services/') || w === 'gateway');
}

// --- kubectl ------------------------------------------------------------------------------

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  /** Kind-specific; the checks read it structurally. */
  spec?: any;
  data?: Record<string, string>;
  [key: string]: unknown;
}

let kubectlChecked: string | undefined;

/** Fails with a message that says what to install when kubectl (with kustomize v4+) is missing. */
export function requireKubectl(): void {
  if (kubectlChecked) return;
  const run = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error || run.status !== 0) {
    throw new Error(
      `kubectl is needed to render deploy/k8s and was not found or failed (${run.error?.message ?? run.stderr.trim()}).\n` +
        'Install it (Debian: apt-get install kubectl, or kubernetes-client) - .ci/run does this when it is missing.',
    );
  }
  const info = JSON.parse(run.stdout) as { clientVersion?: { gitVersion?: string }; kustomizeVersion?: string };
  // kubectl prints its kustomize version from 1.24 on; 1.21 to 1.23 embed kustomize v4 silently.
  const minor = Number(/^v?1\.(\d+)/.exec(info.clientVersion?.gitVersion ?? '')?.[1] ?? 0);
  const kustomize = info.kustomizeVersion ?? (minor >= 21 ? 'v4 (kubectl 1.21-1.23)' : 'v2 or older');
  const major = Number(/^v?(\d+)/.exec(kustomize)?.[1] ?? 0);
  if (major < 4) {
    throw new Error(
      `kubectl ${info.clientVersion?.gitVersion ?? '?'} embeds kustomize ${kustomize}; deploy/k8s needs kustomize v4 or later ` +
        '(kubectl 1.21+). Debian bookworm\'s kubernetes-client is 1.20: install a newer kubectl.',
    );
  }
  kubectlChecked = kustomize;
}

const rendered = new Map<string, K8sObject[]>();

/**
 * `kubectl kustomize deploy/k8s/overlays/<overlay>`, parsed; cached per test file. With
 * `components` (folders under deploy/k8s/components), the overlay as an operator extends it:
 * the components added, in the overlay's namespace.
 */
export function render(overlay: Overlay, components: readonly string[] = []): K8sObject[] {
  const key = [overlay, ...components].join('+');
  const cached = rendered.get(key);
  if (cached) return cached;
  requireKubectl();
  const dir = path.join(ROOT, 'deploy', 'k8s', 'overlays', overlay);
  let target = dir;
  if (components.length > 0) {
    // kustomize takes only relative paths to other kustomizations.
    target = mkdtempSync(path.join(tmpdir(), `pf-k8s-${overlay}-`));
    const namespace = (parseYamlStream(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'), overlay)[0] as { namespace?: string }).namespace;
    const rel = (p: string) => path.relative(target, p);
    writeFileSync(
      path.join(target, 'kustomization.yaml'),
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        ...(namespace ? { namespace } : {}),
        resources: [rel(dir)],
        components: components.map((c) => rel(path.join(ROOT, 'deploy', 'k8s', 'components', c))),
      }),
    );
  }
  try {
    const run = spawnSync('kubectl', ['kustomize', target], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    if (run.error || run.status !== 0) {
      throw new Error(`kubectl kustomize ${key} failed:\n${run.error?.message ?? run.stderr}`);
    }
    const objects = parseYamlStream(run.stdout, `overlay ${key}`) as K8sObject[];
    rendered.set(key, objects);
    return objects;
  } finally {
    if (target !== dir) rmSync(target, { recursive: true, force: true });
  }
}

export function parseYamlStream(text: string, what: string): unknown[] {
  const docs = parseAllDocuments(text, { merge: true });
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${what}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} named ${name} in the rendered manifests`);
  return found;
}

/** A generated ConfigMap's rendered name carries a hash suffix: find it by the name kustomize was given. */
export function configMapByBaseName(objects: K8sObject[], base: string): K8sObject | undefined {
  return ofKind(objects, 'ConfigMap').find((o) => o.metadata.name === base || new RegExp(`^${base}-[a-z0-9]{10}$`).test(o.metadata.name));
}

export function matchesSelector(labels: Record<string, string> | undefined, selector: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

export interface EnvSource {
  /** Variable -> where its value comes from. */
  vars: Map<string, { from: 'configMap'; configMap: string; value: string } | { from: 'secret'; secret: string; key: string; optional: boolean } | { from: 'value'; value: string } | { from: 'other' }>;
  /** envFrom secretRefs: their keys cannot be known from the manifests, so they are not allowed. */
  secretRefs: string[];
  missingConfigMaps: string[];
}

/** Every variable a container gets, and from where (envFrom ConfigMaps resolved in the render). */
export function containerEnv(objects: K8sObject[], container: any): EnvSource {
  const vars: EnvSource['vars'] = new Map();
  const secretRefs: string[] = [];
  const missingConfigMaps: string[] = [];
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const cm = ofKind(objects, 'ConfigMap').find((o) => o.metadata.name === source.configMapRef.name);
      if (!cm) {
        missingConfigMaps.push(source.configMapRef.name);
        continue;
      }
      for (const [key, value] of Object.entries(cm.data ?? {})) vars.set(key, { from: 'configMap', configMap: cm.metadata.name, value });
    }
    if (source.secretRef) secretRefs.push(source.secretRef.name);
  }
  for (const entry of container.env ?? []) {
    if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      vars.set(entry.name, { from: 'secret', secret: ref.name, key: ref.key, optional: ref.optional === true });
    } else if (entry.value !== undefined) {
      vars.set(entry.name, { from: 'value', value: String(entry.value) });
    } else {
      vars.set(entry.name, { from: 'other' });
    }
  }
  return { vars, secretRefs, missingConfigMaps };
}

/** The value a variable ends up with: ConfigMap or literal value, else the code's default. */
export function effectiveValue(env: EnvSource, shape: Shape, key: string): unknown {
  const source = env.vars.get(key);
  if (source && (source.from === 'configMap' || source.from === 'value') && source.value.trim() !== '') {
    const parsed = shape[key]?.safeParse(source.value);
    return parsed?.success ? parsed.data : source.value;
  }
  return defaultOf(shape, key);
}

export function mainContainer(workload: K8sObject): any {
  const containers = workload.spec?.template?.spec?.containers ?? [];
  return containers[0];
}

export function imageTag(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@');
  const slash = withoutDigest!.lastIndexOf('/');
  const colon = withoutDigest!.lastIndexOf(':');
  if (colon > slash) return { name: withoutDigest!.slice(0, colon), tag: withoutDigest!.slice(colon + 1), ...(digest ? { digest } : {}) };
  return { name: withoutDigest!, ...(digest ? { digest } : {}) };
}

/** `http://<service>:<port>/...` values in a container's environment: whom it calls directly. */
export function callsOf(env: EnvSource, services: string[], shape: Shape): { service: string; port: number; variable: string }[] {
  const out: { service: string; port: number; variable: string }[] = [];
  for (const key of Object.keys(shape)) {
    const value = effectiveValue(env, shape, key);
    if (typeof value !== 'string' || !/^https?:\/\//.test(value)) continue;
    const url = new URL(value);
    if (services.includes(url.hostname)) out.push({ service: url.hostname, port: Number(url.port || 80), variable: key });
  }
  return out;
}

export function readRepoFile(relative: string): string {
  return readFileSync(path.join(ROOT, relative), 'utf8');
}
