import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import client from 'prom-client';

/**
 * Prometheus metrics of one process (`GET /metrics`, the text format): Node's own (CPU, memory,
 * event-loop lag, GC; prom-client's defaults), HTTP requests per route and status, and gauges the
 * services register (outbox backlog, webhook queue, overdue order timers). One registry per
 * process, labelled with the service's name; in the embedded process, where every service shares
 * one, the name is `embedded` and the gauges carry their own `schema`/`service` labels.
 */
export const metricsRegistry = client.register;

let defaultsCollected = false;

/** Names the process in every series, and starts Node's default metrics (once per process). */
export function startProcessMetrics(service: string): void {
  metricsRegistry.setDefaultLabels({ service });
  if (defaultsCollected) return;
  defaultsCollected = true;
  client.collectDefaultMetrics({ register: metricsRegistry });
}

/** A metric registered once per process: a second service in the same process shares it. */
export function sharedMetric<M extends client.Metric<string>>(name: string, make: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? make();
}

const requestDuration = () =>
  sharedMetric(
    'http_server_request_duration_seconds',
    () =>
      new client.Histogram({
        name: 'http_server_request_duration_seconds',
        help: 'HTTP requests served, by method, route (the path template, or "unmatched") and status code; from the request to the last byte of the answer.',
        labelNames: ['method', 'route', 'status_code'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [metricsRegistry],
      }),
  );

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route label of a served request: the path template of the route that answered it (never
 * the path itself, whose ids would make a series per order), or `unmatched`.
 */
export function routeLabel(req: Pick<Request, 'route'> & { routeTemplate?: string }): string {
  if (req.routeTemplate) return req.routeTemplate;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : 'unmatched';
}

/** Sets the route label of `req` (what `req.route` would give, where express sets none). */
export function nameRoute(req: Request, template: string): void {
  (req as Request & { routeTemplate?: string }).routeTemplate = template;
}

/**
 * Names the route of requests that reach a handler mounted with `app.use` (which sets no
 * `req.route`), such as Apollo's on `/graphql`.
 */
export function routeNamed(template: string): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    nameRoute(req, template);
    next();
  };
}

/** Records every request's duration once its answer is finished (or the client went away). */
export function httpMetrics(): RequestHandler {
  const histogram = requestDuration();
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A method is client input: an unknown one is one series, not one per spelling.
      const method = KNOWN_METHODS.has(req.method) ? req.method : 'OTHER';
      histogram.observe({ method, route: routeLabel(req as Request & { routeTemplate?: string }), status_code: String(res.statusCode) }, seconds);
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

/** `GET /metrics` in Prometheus's text format. */
export function metricsHandler(): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    metricsRegistry
      .metrics()
      .then((text) => {
        res.setHeader('content-type', metricsRegistry.contentType);
        res.setHeader('cache-control', 'no-store');
        res.send(text);
      })
      .catch(next);
  };
}

/**
 * A gauge whose values are read when Prometheus scrapes, from sources that come and go with the
 * services of the process (several share one in the embedded process). A source that fails to
 * answer (its database down) is left out of that scrape, not a failed scrape.
 */
type GaugeReading<L extends string> = { labels: Partial<Record<L, string>>; value: number };
type GaugeSource = () => Promise<GaugeReading<string>[]>;

/** The sources of each scraped gauge, by name: every ScrapedGauge of one name shares them. */
const gaugeSources = new Map<string, Set<GaugeSource>>();

export class ScrapedGauge<L extends string> {
  private readonly sources: Set<GaugeSource>;

  constructor(config: { name: string; help: string; labelNames: readonly L[] }) {
    const sources = gaugeSources.get(config.name) ?? new Set<GaugeSource>();
    gaugeSources.set(config.name, sources);
    this.sources = sources;
    sharedMetric(
      config.name,
      () =>
        new client.Gauge<L>({
          name: config.name,
          help: config.help,
          labelNames: config.labelNames,
          registers: [metricsRegistry],
          async collect() {
            this.reset();
            const readings = await Promise.all([...sources].map((read) => read().catch(() => [])));
            for (const reading of readings) for (const { labels, value } of reading) this.set(labels as Partial<Record<L, string>>, value);
          },
        }),
    );
  }

  /** Adds a source; returns its removal. */
  addSource(read: () => Promise<GaugeReading<L>[]>): () => void {
    const source = read as GaugeSource;
    this.sources.add(source);
    return () => this.sources.delete(source);
  }
}

/** One read shared by the gauges collected in the same scrape (the next scrape reads again). */
export function sharedScrapeRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => (inFlight ??= read().finally(() => setImmediate(() => (inFlight = undefined))));
}

/** Mounts the request histogram (for every route mounted after it) and `GET /metrics` on `app`. */
export function mountMetrics(app: Express): void {
  app.use(httpMetrics());
  app.get('/metrics', metricsHandler());
}
