// deploy/k8s/rollout.sh against a stand-in kubectl that records what it is asked (rendering is
// passed to the real kubectl): migrations first and alone, then only the service's own objects.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, render, requireKubectl } from './support/deploy';

let bin: string;
let realKubectl: string;

beforeAll(() => {
  requireKubectl();
  realKubectl = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();
  bin = mkdtempSync(path.join(tmpdir(), 'pf-rollout-'));
  // The stand-in: renders for real, records every other call, and reports Jobs as the test says.
  writeFileSync(
    path.join(bin, 'kubectl'),
    `#!/bin/sh
if [ "$1" = kustomize ]; then exec "${realKubectl}" "$@"; fi
echo "$*" >> "${bin}/calls"
case "$*" in *"get job"*) printf '%s' "$JOB_STATE" ;; esac
exit 0
`,
  );
  chmodSync(path.join(bin, 'kubectl'), 0o755);
  writeFileSync(path.join(bin, 'sleep'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(bin, 'sleep'), 0o755);
});

afterAll(() => rmSync(bin, { recursive: true, force: true }));

function rollout(overlay: string, service: string, jobState = 'Complete') {
  rmSync(path.join(bin, 'calls'), { force: true });
  const run = spawnSync('bash', [path.join(ROOT, 'deploy', 'k8s', 'rollout.sh'), overlay, service], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, JOB_STATE: jobState },
    timeout: 60_000,
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(path.join(bin, 'calls'), 'utf8').trim().split('\n');
  } catch {
    // no call recorded
  }
  return { status: run.status, stderr: run.stderr, calls: calls.map((c) => c.replace(/-f \S+/, '-f <manifest>')) };
}

test('a service with migrations: the Job first (the old one deleted), then the service\'s own objects, then its rollout', () => {
  const ns = render('prod').find((o) => o.kind === 'Deployment')!.metadata.namespace;
  const { status, calls } = rollout('prod', 'orders');
  expect(status).toBe(0);
  expect(calls).toEqual([
    // The shared settings first: the Job and the Deployment may refer to a pf-common of a new name.
    'apply -f <manifest> -l app.kubernetes.io/component=shared-settings',
    `--namespace ${ns} delete job orders-migrate --ignore-not-found --wait=true`,
    'apply -f <manifest> -l app.kubernetes.io/name=orders,app.kubernetes.io/component=migration',
    `--namespace ${ns} get job orders-migrate -o jsonpath={.status.conditions[?(@.status=="True")].type}`,
    'apply -f <manifest> -l app.kubernetes.io/name=orders',
    `--namespace ${ns} rollout status deployment/orders --timeout=600s`,
  ]);
});

test('a failed migration stops the release before the service changes', () => {
  const { status, calls, stderr } = rollout('dev', 'stock', 'Failed');
  expect(status).toBe(1);
  expect(stderr).toContain('did not complete');
  expect(calls.some((c) => c === 'apply -f <manifest> -l app.kubernetes.io/name=stock')).toBe(false);
});

test('a service without a database goes straight to its rollout; an unknown service is refused', () => {
  const gateway = rollout('prod', 'gateway');
  expect(gateway.status).toBe(0);
  expect(gateway.calls).toEqual([
    'apply -f <manifest> -l app.kubernetes.io/component=shared-settings',
    'apply -f <manifest> -l app.kubernetes.io/name=gateway',
    expect.stringContaining('rollout status deployment/gateway'),
  ]);
  expect(rollout('prod', 'nope').status).toBe(64);
});

test('what `-l app.kubernetes.io/name=<service>` selects includes the ConfigMaps its Deployment needs', () => {
  const objects = render('prod');
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const svc = d.metadata.name;
    const spec = d.spec.template.spec;
    const names = [
      ...spec.containers.flatMap((c: any) => (c.envFrom ?? []).map((e: any) => e.configMapRef?.name)),
      ...(spec.volumes ?? []).map((v: any) => v.configMap?.name),
    ].filter(Boolean);
    for (const name of names) {
      const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)!;
      // Shared ConfigMaps (pf-common) change only with a full apply.
      if (cm.metadata.name.startsWith('pf-common')) continue;
      expect({ cm: name, label: cm.metadata.labels?.['app.kubernetes.io/name'] }).toEqual({ cm: name, label: svc });
    }
  }
});

test('the shared settings a release applies are the pf-common ConfigMap alone, under its hashed name', () => {
  for (const overlay of ['dev', 'prod'] as const) {
    const shared = render(overlay).filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'shared-settings');
    expect(shared.map((o) => [o.kind, o.metadata.name.replace(/-[a-z0-9]{10}$/, '')])).toEqual([['ConfigMap', 'pf-common']]);
  }
});
