// The optional monitoring component (deploy/k8s/components/monitoring) on each overlay, as an
// operator adds it: its PodMonitors scrape every service where it serves GET /metrics and the two
// exporters the alerts read, and every alert parses as PromQL, reads only series that exist (ours
// as the code defines them, the exporters' as listed below), stays on the services' own job and
// says what to do.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { parser as PromqlParser } from '@prometheus-io/lezer-promql' with { 'resolution-mode': 'import' };
import client from 'prom-client';
import { OVERLAYS, ROOT, SERVICE_DIRS, mainContainer, matchesSelector, named, ofKind, render, type K8sObject } from './support/deploy';

// The PromQL grammar of Prometheus's own UI: an ES module with a CommonJS build, loaded as such.
const { parser } = require('@prometheus-io/lezer-promql') as { parser: typeof PromqlParser };

/** Series the alerts read from outside our code: Prometheus itself, Strimzi's Kafka exporter, CloudNativePG's exporter. */
const EXPORTER_SERIES = new Set([
  'up',
  'kafka_consumergroup_lag',
  'kafka_topic_partition_under_replicated_partition',
  'kafka_topic_partition_leader',
  'kafka_topic_partitions',
  'cnpg_pg_stat_archiver_failed_count',
  'cnpg_backends_total',
]);

let metricNames: Set<string> | undefined;

/** Metric names our code registers (`name: '...'` of prom-client metrics and ScrapedGauges), and prom-client's defaults; read once. */
function ourMetricNames(): Set<string> {
  if (metricNames) return metricNames;
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const file = path.join(dir, entry);
      if (statSync(file).isDirectory()) {
        if (entry !== 'node_modules' && entry !== 'dist' && entry !== 'generated') walk(file);
      } else if (file.endsWith('.ts') && !file.endsWith('.spec.ts')) {
        for (const m of readFileSync(file, 'utf8').matchAll(/name: '((?:pf|http_server)_[a-z_]+)'/g)) names.add(m[1]!);
      }
    }
  };
  for (const dir of [path.join(ROOT, 'libs', 'platform', 'src'), ...Object.values(SERVICE_DIRS).map((d) => path.join(ROOT, d, 'src'))]) walk(dir);
  const defaults = new client.Registry();
  client.collectDefaultMetrics({ register: defaults });
  for (const m of defaults.getMetricsAsArray()) names.add(m.name);
  metricNames = names;
  return names;
}

interface Selector {
  metric: string;
  matchers: string[];
}

/** Parses a PromQL expression: its syntax errors (as the text around them) and its series selectors. */
function parsePromql(expr: string): { errors: string[]; selectors: Selector[] } {
  const errors: string[] = [];
  const selectors: Selector[] = [];
  const tree = parser.parse(expr);
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(JSON.stringify(expr.slice(Math.max(0, node.from - 20), node.to + 20)));
      if (node.name === 'VectorSelector') {
        const id = node.node.getChild('Identifier');
        const matchers = node.node.getChild('LabelMatchers');
        selectors.push({
          metric: id ? expr.slice(id.from, id.to) : '',
          matchers: matchers ? matchers.getChildren('UnquotedLabelMatcher').map((m) => expr.slice(m.from, m.to).replace(/\s+/g, '')) : [],
        });
      }
    },
  });
  return { errors, selectors };
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

describe.each(OVERLAYS)('monitoring component on overlay %s', (overlay) => {
  let objects: K8sObject[];
  let added: K8sObject[];
  let rules: Rule[];
  beforeAll(() => {
    objects = render(overlay, ['monitoring']);
    const plain = new Set(render(overlay).map((o) => `${o.kind}/${o.metadata.name}`));
    added = objects.filter((o) => !plain.has(`${o.kind}/${o.metadata.name}`));
    rules = (ofKind(added, 'PrometheusRule')[0]!.spec.groups as { rules: Rule[] }[]).flatMap((g) => g.rules);
  });

  test('adds three PodMonitors (the services, Postgres, the Kafka exporter) and a PrometheusRule, in the overlay\'s namespace, and changes nothing else', () => {
    expect(added.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'PodMonitor/pf-kafka-exporter',
      'PodMonitor/pf-postgres',
      'PodMonitor/pf-services',
      'PrometheusRule/pf-alerts',
    ]);
    for (const o of added) expect(o.apiVersion).toBe('monitoring.coreos.com/v1');
    const namespace = named(objects, 'Deployment', 'orders').metadata.namespace;
    for (const o of added) expect(o.metadata.namespace).toBe(namespace);
    expect(objects.length).toBe(render(overlay).length + added.length);
  });

  test('the exporters\' PodMonitors select the pods the operators make for this Postgres cluster and this Kafka cluster', () => {
    const cluster = ofKind(objects, 'Cluster')[0]!.metadata.name;
    const kafka = ofKind(objects, 'Kafka')[0]!;
    expect(kafka.spec.kafkaExporter).toBeDefined();
    // CloudNativePG labels its instances cnpg.io/cluster=<cluster>; Strimzi names the exporter <kafka>-kafka-exporter.
    expect(named(added, 'PodMonitor', 'pf-postgres').spec.selector.matchLabels).toEqual({ 'cnpg.io/cluster': cluster });
    expect(named(added, 'PodMonitor', 'pf-kafka-exporter').spec.selector.matchLabels).toEqual({ 'strimzi.io/name': `${kafka.metadata.name}-kafka-exporter` });
    // The Postgres NetworkPolicy admits Prometheus on the exporter's port.
    const postgresPolicy = named(objects, 'NetworkPolicy', 'pf-postgres');
    const ports = (postgresPolicy.spec.ingress as { ports?: { port: number }[] }[]).flatMap((r) => r.ports ?? []).map((p) => p.port);
    expect(ports).toContain(9187);
  });

  test('the services\' PodMonitor scrapes every service\'s pods (not the migration Jobs\') on the port their annotations name, under job "pf"', () => {
    const monitor = named(added, 'PodMonitor', 'pf-services');
    const [endpoint] = monitor.spec.podMetricsEndpoints as { port: string; path: string }[];
    expect(monitor.spec.podMetricsEndpoints).toHaveLength(1);
    for (const svc of Object.keys(SERVICE_DIRS)) {
      const d = named(objects, 'Deployment', svc);
      const labels = d.spec.template.metadata.labels as Record<string, string>;
      const annotations = d.spec.template.metadata.annotations as Record<string, string>;
      expect({ svc, selected: matchesSelector(labels, monitor.spec.selector.matchLabels) }).toEqual({ svc, selected: true });
      const port = (mainContainer(d).ports as { name: string; containerPort: number }[]).find((p) => p.name === endpoint!.port);
      expect({ svc, port: port?.containerPort, path: endpoint!.path }).toEqual({ svc, port: Number(annotations['prometheus.io/port']), path: annotations['prometheus.io/path'] });
      expect(labels[monitor.spec.jobLabel]).toBe('pf');
    }
    for (const job of ofKind(objects, 'Job')) {
      expect({ job: job.metadata.name, selected: matchesSelector(job.spec.template.metadata.labels, monitor.spec.selector.matchLabels) }).toEqual({ job: job.metadata.name, selected: false });
    }
  });

  test('every alert parses, reads only series that exist, keeps our series to job "pf", and has a duration, a severity, a summary and a description', () => {
    const ours = ourMetricNames();
    const exists = (metric: string) => ours.has(metric) || ours.has(metric.replace(/_(bucket|count|sum)$/, '')) || EXPORTER_SERIES.has(metric);
    expect(rules.length).toBeGreaterThanOrEqual(10);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    const problems: string[] = [];
    for (const rule of rules) {
      const name = rule.alert ?? '(no alert name)';
      if (!/^Pf[A-Z][A-Za-z]+$/.test(rule.alert ?? '')) problems.push(`${name}: not an alert named Pf...`);
      const { errors, selectors } = parsePromql(rule.expr);
      if (errors.length > 0) problems.push(`${name}: PromQL syntax error near ${errors.join(', ')}`);
      if (selectors.length === 0) problems.push(`${name}: reads no series`);
      for (const s of selectors) {
        if (!exists(s.metric)) problems.push(`${name}: reads ${s.metric}, which nothing exports`);
        if (!EXPORTER_SERIES.has(s.metric) || s.metric === 'up') {
          if (!s.matchers.includes('job="pf"')) problems.push(`${name}: ${s.metric} without job="pf" (would mix in other applications' series)`);
        }
      }
      if (!/^\d+[mh]$/.test(rule.for ?? '')) problems.push(`${name}: no "for" duration`);
      if (!['warning', 'critical'].includes(rule.labels?.severity ?? '')) problems.push(`${name}: severity ${rule.labels?.severity}`);
      if (!rule.annotations?.summary || !rule.annotations.description) problems.push(`${name}: summary or description missing`);
    }
    expect(problems).toEqual([]);
  });

  test('the connection alert watches every service role at 80 % of the connectionLimit the Cluster gives it', () => {
    const expr = rules.find((r) => r.alert === 'PfPostgresRoleNearConnectionLimit')!.expr;
    const thresholds = Object.fromEntries([...expr.matchAll(/cnpg_backends_total\{usename="([a-z_]+)"\}\) > (\d+)/g)].map((m) => [m[1], Number(m[2])]));
    const roles = ofKind(objects, 'Cluster')[0]!.spec.managed.roles as { name: string; connectionLimit: number }[];
    expect(thresholds).toEqual(Object.fromEntries(roles.map((r) => [r.name, Math.floor(r.connectionLimit * 0.8)])));
  });

  test('the checks above would notice a broken rule', () => {
    expect(parsePromql('sum by (service (rate(up{job="pf"}[5m]))').errors).not.toEqual([]);
    expect(parsePromql('max(pf_outbox_oldest_unpublished_age_seconds{job="pf"}) > 60').selectors).toEqual([{ metric: 'pf_outbox_oldest_unpublished_age_seconds', matchers: ['job="pf"'] }]);
    expect(ourMetricNames().has('pf_outbox_oldest_unpublished_age_seconds')).toBe(true);
    expect(ourMetricNames().has('pf_outbox_oldest_unpublished_age')).toBe(false);
  });
});
