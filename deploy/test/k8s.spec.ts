// The Kubernetes manifests as operators apply them: both overlays rendered by `kubectl kustomize`,
// every object checked against the Kubernetes schemas of a pinned version, and the rules every
// workload must follow (probes, resources, security context, graceful shutdown, pinned images,
// autoscaling, disruption budgets, network policies).
import {
  CONFIG_SHAPES,
  OVERLAYS,
  SERVICE_DIRS,
  callsOf,
  containerEnv,
  effectiveValue,
  imageTag,
  mainContainer,
  matchesSelector,
  named,
  ofKind,
  render,
  type K8sObject,
} from './support/deploy';
import { MAX_REQUEST_BODY_BYTES } from '../../services/rest-edge/src/edge';

// kubernetes-models is pinned in the root package.json (4.5.1: the Kubernetes 1.33 OpenAPI
// schemas, precompiled). It checks types, enums, formats and required fields.
function modelFor(apiVersion: string, kind: string): { validate(): void } | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const modulePath = group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
  try {
    return require(modulePath)[kind];
  } catch {
    return undefined;
  }
}

/**
 * Custom resources of the two operators. No maintained npm package ships their CRD schemas, so
 * they get structural checks here instead (below) and are listed, not silently passed.
 */
const CUSTOM_RESOURCES: Record<string, string[]> = {
  'kafka.strimzi.io/v1beta2': ['Kafka', 'KafkaNodePool', 'KafkaTopic'],
  'postgresql.cnpg.io/v1': ['Cluster', 'ScheduledBackup'],
};
const isCustom = (o: K8sObject) => CUSTOM_RESOURCES[o.apiVersion]?.includes(o.kind) ?? false;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const SERVICES = Object.keys(SERVICE_DIRS);
const podLabels = (w: K8sObject): Record<string, string> => w.spec?.template?.metadata?.labels ?? {};
const seconds = (ms: unknown) => Number(ms) / 1000;

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(overlay);
  });
  const deployment = (svc: string) => named(objects, 'Deployment', svc);

  test('renders, and every built-in object validates against the Kubernetes 1.33 schemas', () => {
    expect(objects.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const o of objects.filter((x) => !isCustom(x))) {
      const Model = modelFor(o.apiVersion, o.kind) as unknown as (new (data: unknown) => { validate(): void }) | undefined;
      if (!Model) {
        problems.push(`${o.kind} ${o.metadata?.name}: no schema for ${o.apiVersion} (unknown or removed API)`);
        continue;
      }
      try {
        new Model(o).validate();
      } catch (err) {
        problems.push(`${o.kind} ${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test(`custom resources (schemas not validated: ${Object.values(CUSTOM_RESOURCES).flat().join(', ')}) have a known apiVersion and kind, a valid name and their essential fields`, () => {
    const custom = objects.filter((o) => o.apiVersion.endsWith('strimzi.io/v1beta2') || o.apiVersion.includes('cnpg.io'));
    expect(custom.every(isCustom)).toBe(true);
    const problems: string[] = [];
    for (const o of custom) if (!DNS_SUBDOMAIN.test(o.metadata.name) || o.metadata.name.length > 253) problems.push(`${o.kind} ${o.metadata.name}: invalid name`);

    const kafkas = ofKind(objects, 'Kafka');
    expect(kafkas).toHaveLength(1);
    const kafka = kafkas[0]!;
    expect(kafka.spec.kafka.version).toMatch(/^\d+\.\d+\.\d+$/);
    // KRaft with node pools: no ZooKeeper section, at least one pool with the controller role.
    expect(kafka.spec.zookeeper).toBeUndefined();
    const pools = ofKind(objects, 'KafkaNodePool').filter((p) => p.metadata.labels?.['strimzi.io/cluster'] === kafka.metadata.name);
    expect(pools.some((p) => p.spec.roles.includes('controller'))).toBe(true);
    expect(pools.some((p) => p.spec.roles.includes('broker'))).toBe(true);
    const brokers = pools.filter((p) => p.spec.roles.includes('broker')).reduce((n, p) => n + p.spec.replicas, 0);
    for (const t of ofKind(objects, 'KafkaTopic')) {
      if (t.metadata.labels?.['strimzi.io/cluster'] !== kafka.metadata.name) problems.push(`KafkaTopic ${t.metadata.name}: not bound to ${kafka.metadata.name}`);
      if (!(Number.isInteger(t.spec.partitions) && t.spec.partitions > 0)) problems.push(`KafkaTopic ${t.metadata.name}: partitions`);
      if (!(Number.isInteger(t.spec.replicas) && t.spec.replicas > 0 && t.spec.replicas <= brokers)) problems.push(`KafkaTopic ${t.metadata.name}: replicas ${t.spec.replicas} with ${brokers} brokers`);
      const isr = Number(t.spec.config?.['min.insync.replicas'] ?? 1);
      if (isr > t.spec.replicas || (t.spec.replicas > 1 && isr >= t.spec.replicas)) problems.push(`KafkaTopic ${t.metadata.name}: min.insync.replicas ${isr} of ${t.spec.replicas} leaves no room for a broker down`);
      if (!['compact', 'delete'].includes(t.spec.config?.['cleanup.policy'])) problems.push(`KafkaTopic ${t.metadata.name}: cleanup.policy`);
    }
    const clusters = ofKind(objects, 'Cluster');
    expect(clusters).toHaveLength(1);
    expect(clusters[0]!.spec.instances).toBeGreaterThanOrEqual(1);
    expect(clusters[0]!.spec.imageName).toMatch(/:\d+\.\d+/);
    expect(problems).toEqual([]);
  });

  test('no Secret objects and no literal credentials: secrets are only referenced', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
  });

  test('a Deployment, Service, HPA and PDB for every service; a migration Job for every service with a schema', () => {
    for (const svc of SERVICES) {
      const d = deployment(svc);
      const pods = podLabels(d);
      expect(matchesSelector(pods, d.spec.selector.matchLabels)).toBe(true);
      const service = named(objects, 'Service', svc);
      expect(matchesSelector(pods, service.spec.selector)).toBe(true);
      const ports = (mainContainer(d).ports ?? []).map((p: { name: string }) => p.name);
      for (const p of service.spec.ports) expect(ports).toContain(p.targetPort);
      const hpa = named(objects, 'HorizontalPodAutoscaler', svc);
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: svc });
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      // The HPA owns the replica count; a fixed one would be reset on every apply.
      expect(d.spec.replicas).toBeUndefined();
      const pdb = ofKind(objects, 'PodDisruptionBudget').find((p) => matchesSelector(pods, p.spec.selector.matchLabels));
      expect(pdb).toBeDefined();
    }
    const jobs = ofKind(objects, 'Job');
    for (const svc of SERVICES) {
      const hasDatabase = containerEnv(objects, mainContainer(deployment(svc))).vars.get('DATABASE_URL')?.from === 'value';
      const job = jobs.find((j) => j.metadata.name === `${svc}-migrate`);
      if (!hasDatabase) {
        expect(job).toBeUndefined();
        continue;
      }
      expect(job).toBeDefined();
      const c = mainContainer(job!);
      expect(c.command).toEqual(['node', 'dist/migrate.js']);
      expect(c.image).toBe(mainContainer(deployment(svc)).image);
      expect(job!.spec.parallelism ?? 1).toBe(1);
      expect(job!.spec.completions ?? 1).toBe(1);
      // The Service must never route to a migration pod.
      expect(matchesSelector(podLabels(job!), named(objects, 'Service', svc).spec.selector)).toBe(false);
    }
  });

  test('every Deployment: readiness /readyz, liveness /healthz, resources, non-root read-only container without capabilities, graceful shutdown', () => {
    const problems: string[] = [];
    for (const svc of SERVICES) {
      const d = deployment(svc);
      const pod = d.spec.template.spec;
      const c = mainContainer(d);
      const ports = (c.ports ?? []).map((p: { name: string }) => p.name);
      const say = (m: string) => problems.push(`${svc}: ${m}`);
      if (c.readinessProbe?.httpGet?.path !== '/readyz') say('readinessProbe must GET /readyz');
      if (c.livenessProbe?.httpGet?.path !== '/healthz') say('livenessProbe must GET /healthz');
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean)) {
        if (!ports.includes(probe.httpGet?.port) && !c.ports?.some((p: { containerPort: number }) => p.containerPort === probe.httpGet?.port)) say(`probe port ${probe.httpGet?.port} is not a container port`);
      }
      if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory) say('resources.requests cpu and memory');
      if (!c.resources?.limits?.memory) say('resources.limits.memory');
      // The V8 heap's ceiling set below the memory limit, leaving room for what is not heap.
      const heapMb = Number(/--max-old-space-size=(\d+)/.exec((c.env ?? []).find((e: { name: string }) => e.name === 'NODE_OPTIONS')?.value ?? '')?.[1]);
      const limitMb = Number(/^(\d+)Mi$/.exec(String(c.resources?.limits?.memory))?.[1]);
      if (!(heapMb > 0 && heapMb <= limitMb * 0.8)) say(`NODE_OPTIONS --max-old-space-size (${heapMb} MB) must be set, at most 80 % of the memory limit (${c.resources?.limits?.memory})`);
      if (pod.securityContext?.runAsNonRoot !== true) say('pod securityContext.runAsNonRoot');
      if (!(Number(pod.securityContext?.runAsUser) > 0)) say('pod securityContext.runAsUser must be a non-root uid');
      if (c.securityContext?.readOnlyRootFilesystem !== true) say('readOnlyRootFilesystem');
      if (c.securityContext?.allowPrivilegeEscalation !== false) say('allowPrivilegeEscalation false');
      if (!c.securityContext?.capabilities?.drop?.includes('ALL')) say('capabilities.drop ALL');
      if (c.securityContext?.privileged) say('privileged');
      // preStop sleep + the service's own shutdown budget must fit in the grace period.
      const sleep = Number(c.lifecycle?.preStop?.exec?.command?.[0] === 'sleep' ? c.lifecycle.preStop.exec.command[1] : c.lifecycle?.preStop?.sleep?.seconds);
      if (!(sleep > 0)) say('preStop sleep');
      const env = containerEnv(objects, c);
      const shutdown = seconds(effectiveValue(env, CONFIG_SHAPES[svc]!, 'SHUTDOWN_TIMEOUT_MS'));
      const grace = pod.terminationGracePeriodSeconds ?? 30;
      if (!(grace > sleep + shutdown)) say(`terminationGracePeriodSeconds ${grace} must exceed preStop ${sleep} s + SHUTDOWN_TIMEOUT_MS ${shutdown} s`);
      // The longest piece of work in flight must fit in the time it gets: a webhook attempt (its
      // DNS check, then the request) is recorded when it ends, or it is sent again after a restart,
      // and the delivery worker has the whole budget; the gateway, the edge and orders wait for the
      // service they call up to its timeout inside a request, and the HTTP server drains for half
      // of the budget (Lifecycle.registerHttpServer), the other half being for the steps after it.
      const longest: Record<string, string[]> = {
        webhooks: ['WEBHOOK_DNS_TIMEOUT_MS', 'WEBHOOK_TIMEOUT_MS'],
        gateway: ['GATEWAY_SUBGRAPH_TIMEOUT_MS'],
        // A change may wait for two stock calls in turn (process now: hold, then consume).
        orders: ['STOCK_TIMEOUT_MS', 'STOCK_TIMEOUT_MS'],
        'rest-edge': ['UPSTREAM_TIMEOUT_MS'],
      };
      const work = (longest[svc] ?? []).reduce((n, k) => n + seconds(effectiveValue(env, CONFIG_SHAPES[svc]!, k)), 0);
      const available = svc === 'webhooks' ? shutdown : shutdown / 2;
      if (!(available > work)) say(`${svc === 'webhooks' ? 'SHUTDOWN_TIMEOUT_MS' : 'half of SHUTDOWN_TIMEOUT_MS (the HTTP drain)'} ${available} s must exceed the longest work in flight (${(longest[svc] ?? []).join(' + ')}: ${work} s)`);
    }
    expect(problems).toEqual([]);
  });

  test('a caller waits longer than what it calls may take: the edge for an order change (two stock calls in turn)', () => {
    const value = (svc: string, key: string) => {
      const c = mainContainer(deployment(svc));
      return seconds(effectiveValue(containerEnv(objects, c), CONFIG_SHAPES[svc]!, key));
    };
    expect(value('rest-edge', 'UPSTREAM_TIMEOUT_MS')).toBeGreaterThan(2 * value('orders', 'STOCK_TIMEOUT_MS'));
  });

  test('migration Jobs run with the same security context and have resources', () => {
    for (const job of ofKind(objects, 'Job')) {
      const pod = job.spec.template.spec;
      const c = mainContainer(job);
      expect(pod.restartPolicy).toBe('Never');
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(c.resources.requests.memory).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
    }
  });

  test('the ingress lets through every body the edge reads, so a larger one gets the edge\'s problem, not the controller\'s page', () => {
    const limits = ofKind(objects, 'Ingress').map((i) => i.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']);
    expect(limits.length).toBeGreaterThan(0);
    for (const limit of limits) expect(Number(/^(\d+)m$/.exec(limit ?? '')?.[1]) * 1024 * 1024).toBeGreaterThan(MAX_REQUEST_BODY_BYTES);
  });

  test('the public Ingress routes only the API (/v1), never the probes', () => {
    const paths = ofKind(objects, 'Ingress').flatMap((i) => i.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => ({ path: p.path, type: p.pathType, service: p.backend.service.name }))));
    expect(paths).toEqual([{ path: '/v1', type: 'Prefix', service: 'rest-edge' }]);
  });

  test('every image has a pinned tag, never latest', () => {
    const images = objects
      .filter((o) => o.spec?.template?.spec?.containers)
      .flatMap((o) => [...o.spec.template.spec.containers, ...(o.spec.template.spec.initContainers ?? [])].map((c: { image: string }) => ({ who: `${o.kind} ${o.metadata.name}`, image: c.image })));
    expect(images.length).toBeGreaterThanOrEqual(SERVICES.length);
    for (const { who, image } of images) {
      const { tag, digest } = imageTag(image);
      expect({ who, image, pinned: Boolean(digest) || (tag !== undefined && tag !== 'latest') }).toEqual({ who, image, pinned: true });
    }
    for (const c of ofKind(objects, 'Cluster')) expect(imageTag(c.spec.imageName).tag).not.toBe('latest');
  });

  test('network: default deny for every platform pod, DNS allowed, each service reachable only from its callers and able to reach only its callees', () => {
    const policies = ofKind(objects, 'NetworkPolicy');
    const selecting = (labels: Record<string, string>) =>
      policies.filter((p) => {
        const sel = p.spec.podSelector;
        if (!matchesSelector(labels, sel.matchLabels) && Object.keys(sel.matchLabels ?? {}).length > 0) return false;
        return (sel.matchExpressions ?? []).every((e: { key: string; operator: string; values: string[] }) => e.operator === 'In' && e.values.includes(labels[e.key]!));
      });
    const workloads = [...SERVICES.map(deployment), ...ofKind(objects, 'Job')];
    for (const w of workloads) {
      const mine = selecting(podLabels(w));
      const deny = mine.find((p) => p.spec.policyTypes.includes('Ingress') && p.spec.policyTypes.includes('Egress') && !p.spec.ingress && !p.spec.egress);
      expect({ workload: w.metadata.name, defaultDeny: Boolean(deny) }).toEqual({ workload: w.metadata.name, defaultDeny: true });
      const dns = mine.some((p) => (p.spec.egress ?? []).some((r: { ports?: { port: number }[] }) => r.ports?.some((port) => port.port === 53)));
      expect({ workload: w.metadata.name, dns }).toEqual({ workload: w.metadata.name, dns: true });
    }

    // Who calls whom, read from the services' own URL settings (STOCK_URL, SUBGRAPH_*_URL, ...).
    const calls = SERVICES.flatMap((caller) =>
      callsOf(containerEnv(objects, mainContainer(deployment(caller))), SERVICES, CONFIG_SHAPES[caller]!).map((c) => ({ caller, ...c })),
    );
    expect(calls.length).toBeGreaterThanOrEqual(9);
    const podPeersAllowedIn = (svc: string) =>
      selecting(podLabels(deployment(svc))).flatMap((p) => (p.spec.ingress ?? []).flatMap((r: any) => (r.from ?? []).filter((f: any) => f.podSelector && !f.namespaceSelector).map((f: any) => ({ name: f.podSelector.matchLabels?.['app.kubernetes.io/name'], ports: (r.ports ?? []).map((x: any) => x.port) }))));
    const podPeersAllowedOut = (svc: string) =>
      selecting(podLabels(deployment(svc))).flatMap((p) => (p.spec.egress ?? []).flatMap((r: any) => (r.to ?? []).filter((t: any) => t.podSelector && !t.namespaceSelector).map((t: any) => ({ name: t.podSelector.matchLabels?.['app.kubernetes.io/name'], ports: (r.ports ?? []).map((x: any) => x.port) }))));
    const problems: string[] = [];
    for (const { caller, service, port, variable } of calls) {
      if (!podPeersAllowedIn(service).some((p) => p.name === caller && p.ports.includes(port))) problems.push(`${service} does not admit ${caller} on ${port} (${caller} calls it: ${variable})`);
      if (!podPeersAllowedOut(caller).some((p) => p.name === service && p.ports.includes(port))) problems.push(`${caller} may not reach ${service}:${port} (${variable})`);
    }
    // And nothing more: a service admits only the services that call it.
    for (const svc of SERVICES) {
      const callers = new Set(calls.filter((c) => c.service === svc).map((c) => c.caller));
      for (const peer of podPeersAllowedIn(svc)) if (!callers.has(peer.name)) problems.push(`${svc} admits ${peer.name}, which does not call it`);
    }
    expect(problems).toEqual([]);
  });

  test('network: only webhooks may reach the internet, over TCP on any port (rule W1 accepts any HTTPS port), never private, loopback, link-local, CGNAT or cluster ranges', () => {
    const policies = ofKind(objects, 'NetworkPolicy');
    const blocks = policies.flatMap((p) =>
      (p.spec.egress ?? []).flatMap((r: any) => (r.to ?? []).filter((t: any) => t.ipBlock).map((t: any) => ({ policy: p, block: t.ipBlock, ports: r.ports ?? [] }))),
    );
    const open = blocks.filter((b) => b.block.cidr === '0.0.0.0/0' || b.block.cidr === '::/0');
    expect(open.length).toBeGreaterThan(0);
    for (const { policy, block, ports } of open) {
      expect(policy.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'webhooks', 'app.kubernetes.io/component': 'server' });
      // TCP only, every port: no `port` narrows it (the sender speaks HTTPS, to public addresses only).
      expect(ports).toEqual([{ protocol: 'TCP' }]);
      const required = block.cidr === '0.0.0.0/0'
        ? ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16', '100.64.0.0/10', '0.0.0.0/8']
        : ['::1/128', 'fc00::/7', 'fe80::/10', '::ffff:0:0/96'];
      expect(block.except).toEqual(expect.arrayContaining(required));
    }
    // Any other address block may only name private space (the external Redis), never the internet.
    const privateV4 = [/^10\./, /^172\.(1[6-9]|2\d|3[01])\./, /^192\.168\./];
    for (const { policy, block } of blocks.filter((b) => !open.includes(b))) {
      expect({ policy: policy.metadata.name, cidr: block.cidr, private: privateV4.some((r) => r.test(block.cidr)) }).toEqual({ policy: policy.metadata.name, cidr: block.cidr, private: true });
    }
    // No pod may talk to the internet through a policy that selects every pod.
    for (const p of policies) if (Object.keys(p.spec.podSelector ?? {}).length === 0) expect(p.spec.egress ?? []).toEqual([]);
  });

  test('Postgres connections: each service\'s HPA maximum (plus a rollout\'s surge) times its pools fits its role\'s limit, and all limits fit the server', () => {
    // Per replica: the service's own pools (its *_POOL_MAX settings and the fixed ones below) plus
    // the platform's (the outbox relay's pool of 4 and the LISTEN connections).
    const PLATFORM_CONNECTIONS = 6;
    // Pools sized in code: the orders service's stock-step journal (services/orders/src/index.ts).
    const FIXED_POOLS: Record<string, number> = { orders: 2 };
    const cluster = ofKind(objects, 'Cluster')[0]!;
    const roles = cluster.spec.managed.roles as { name: string; connectionLimit: number }[];
    const problems: string[] = [];
    for (const role of roles) {
      const svc = SERVICES.find((s) => s === role.name)!;
      const env = containerEnv(objects, mainContainer(deployment(svc)));
      const shape = CONFIG_SHAPES[svc]!;
      const perReplica = Object.keys(shape)
        .filter((k) => k.endsWith('_POOL_MAX'))
        .reduce((n, k) => n + Number(effectiveValue(env, shape, k)), PLATFORM_CONNECTIONS + (FIXED_POOLS[svc] ?? 0));
      // A rolling update runs maxSurge pods beside the HPA's maximum (Kubernetes' default: 25 %, rounded up).
      const max = named(objects, 'HorizontalPodAutoscaler', svc).spec.maxReplicas;
      const surgeSetting = String(deployment(svc).spec.strategy?.rollingUpdate?.maxSurge ?? '25%');
      const surge = surgeSetting.endsWith('%') ? Math.ceil((max * Number(surgeSetting.slice(0, -1))) / 100) : Number(surgeSetting);
      const pods = max + surge;
      if (!(role.connectionLimit > 0 && pods * perReplica <= role.connectionLimit)) problems.push(`${svc}: ${pods} pods x ${perReplica} connections > connectionLimit ${role.connectionLimit}`);
    }
    const total = roles.reduce((n, r) => n + r.connectionLimit, 0);
    const maxConnections = Number(cluster.spec.postgresql.parameters.max_connections);
    if (total + 20 > maxConnections) problems.push(`roles may open ${total} connections; max_connections ${maxConnections} leaves too little room`);
    expect(problems).toEqual([]);
  });

  test('Postgres notices a vanished client within minutes (server TCP keep-alive, connection checks): its connections do not hold its role\'s limit for hours', () => {
    const parameters = ofKind(objects, 'Cluster')[0]!.spec.postgresql.parameters as Record<string, string>;
    const idle = Number(parameters.tcp_keepalives_idle);
    const probes = Number(parameters.tcp_keepalives_interval) * Number(parameters.tcp_keepalives_count);
    expect(idle > 0 && probes > 0 && idle + probes <= 300).toBe(true);
    expect(parameters.client_connection_check_interval).toMatch(/^[1-9]\d*s$/);
  });

  if (overlay === 'prod') {
    test('prod: at least 2 replicas of every service, spread by anti-affinity, released (not dev) images', () => {
      for (const svc of SERVICES) {
        expect({ svc, min: named(objects, 'HorizontalPodAutoscaler', svc).spec.minReplicas >= 2 }).toEqual({ svc, min: true });
        const d = deployment(svc);
        const terms = d.spec.template.spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.map((t: any) => t.podAffinityTerm) ??
          d.spec.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
        const self = terms.find((t: any) => t.topologyKey === 'kubernetes.io/hostname' && matchesSelector(podLabels(d), t.labelSelector?.matchLabels));
        expect({ svc, antiAffinity: Boolean(self) }).toEqual({ svc, antiAffinity: true });
        const { tag, digest } = imageTag(mainContainer(d).image);
        expect({ svc, release: Boolean(digest) || /^\d+\.\d+\.\d+$/.test(tag ?? '') }).toEqual({ svc, release: true });
        const pdb = ofKind(objects, 'PodDisruptionBudget').find((p) => matchesSelector(podLabels(d), p.spec.selector.matchLabels))!;
        // With the minimum of 2 replicas, a drain still leaves one serving.
        expect(pdb.spec.maxUnavailable ?? 2 - pdb.spec.minAvailable).toBeLessThan(2);
      }
      const postgres = named(objects, 'Cluster', 'pf-postgres');
      expect(postgres.spec.instances).toBeGreaterThanOrEqual(3);
      // A fail-over loses no commit the services answered for; the instances on distinct nodes;
      // WAL archived and base backups on a schedule.
      expect(postgres.spec.postgresql.synchronous?.number).toBeGreaterThanOrEqual(1);
      // ...and a standby down does not hold every commit up.
      expect(postgres.spec.postgresql.synchronous.number).toBeLessThanOrEqual(postgres.spec.instances - 2);
      expect(postgres.spec.affinity).toMatchObject({ podAntiAffinityType: 'required', topologyKey: 'kubernetes.io/hostname' });
      expect(postgres.spec.backup?.barmanObjectStore?.destinationPath).toMatch(/^s3:\/\//);
      expect(ofKind(objects, 'ScheduledBackup').map((b) => b.spec.cluster.name)).toEqual(['pf-postgres']);
      const pool = ofKind(objects, 'KafkaNodePool').find((p) => p.spec.roles.includes('controller'))!;
      expect(pool.spec.replicas).toBeGreaterThanOrEqual(3);
      // One Kafka node per machine: the loss of one takes one controller and one replica of each partition.
      const kafkaSpread = pool.spec.template?.pod?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
      expect(kafkaSpread).toEqual([{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'strimzi.io/cluster': 'pf-kafka', 'strimzi.io/pool-name': pool.metadata.name } } }]);
    });
  }
});
