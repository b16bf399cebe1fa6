import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { httpMetrics, metricsHandler, metricsRegistry, routeLabel, routeNamed, ScrapedGauge } from './metrics';

async function serve(app: express.Express): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const seriesOf = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));

describe('process metrics over HTTP', () => {
  it('counts requests by method, route template and status, never by the path itself', async () => {
    const app = express();
    app.use(httpMetrics());
    app.get('/metrics', metricsHandler());
    const router = express.Router({ mergeParams: true });
    router.get('/orders/:orderUuid', (_req, res) => void res.json({ ok: true }));
    router.put('/orders/:orderUuid/confirm', (_req, res) => void res.status(202).json({}));
    app.use('/v1/channels/:channelId', router);
    // Mounted with app.use, as Apollo's handler is: no req.route, so it names its route itself.
    app.use('/graphql', routeNamed('/graphql'), (_req, res) => void res.json({ data: {} }));
    const { base, close } = await serve(app);
    try {
      await fetch(`${base}/v1/channels/acme-shop/orders/0f8c2d5e`);
      await fetch(`${base}/v1/channels/acme-shop/orders/1a2b3c4d`);
      await fetch(`${base}/v1/channels/acme-shop/orders/1a2b3c4d/confirm`, { method: 'PUT' });
      await fetch(`${base}/no/such/path/9999`);
      await fetch(`${base}/graphql`, { method: 'POST' });
      const res = await fetch(`${base}/metrics`);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      const counts = seriesOf(text, 'http_server_request_duration_seconds_count');
      expect(counts).toEqual(
        expect.arrayContaining([
          'http_server_request_duration_seconds_count{method="GET",route="/orders/:orderUuid",status_code="200"} 2',
          'http_server_request_duration_seconds_count{method="PUT",route="/orders/:orderUuid/confirm",status_code="202"} 1',
          'http_server_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1',
          'http_server_request_duration_seconds_count{method="POST",route="/graphql",status_code="200"} 1',
        ]),
      );
      // No label carries an id or the path (the figures themselves may hold any digits).
      expect(text).not.toMatch(/="[^"]*(0f8c2d5e|1a2b3c4d|acme-shop|9999)[^"]*"/);
      // Node's own metrics are there too once a process started them (the runners do).
    } finally {
      await close();
    }
  });

  it('reads scraped gauges from every source at scrape time, leaving out a source that fails and one removed', async () => {
    const gauge = new ScrapedGauge({ name: 'pf_test_backlog', help: 'test', labelNames: ['schema'] as const });
    const removeA = gauge.addSource(async () => [{ labels: { schema: 'a' }, value: 3 }]);
    gauge.addSource(async () => {
      throw new Error('database down');
    });
    // A second gauge object of the same name (another service of the process) shares the sources.
    const removeB = new ScrapedGauge({ name: 'pf_test_backlog', help: 'test', labelNames: ['schema'] as const }).addSource(async () => [{ labels: { schema: 'b' }, value: 5 }]);
    let text = await metricsRegistry.metrics();
    expect(seriesOf(text, 'pf_test_backlog').sort()).toEqual(['pf_test_backlog{schema="a"} 3', 'pf_test_backlog{schema="b"} 5']);
    removeA();
    removeB();
    text = await metricsRegistry.metrics();
    expect(seriesOf(text, 'pf_test_backlog')).toEqual([]);
  });

  it('labels a request no route answered as unmatched', () => {
    expect(routeLabel({ route: undefined })).toBe('unmatched');
    expect(routeLabel({ route: { path: '/graphql' } as never })).toBe('/graphql');
  });
});
