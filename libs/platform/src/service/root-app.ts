import express, { type Express } from 'express';
import type { Lifecycle } from '../http/lifecycle';
import { mountMetrics } from '../metrics';
import type { ServiceInstance } from './service';

/**
 * The app a runner serves a service with: the runner's own routes (`/metrics`, `/healthz`,
 * `/readyz`) ahead of the service's app, every answer carrying the service's `answerHeaders`.
 */
export function serviceRootApp(instance: ServiceInstance, lifecycle: Lifecycle): Express {
  const root = express();
  root.disable('x-powered-by');
  root.disable('etag');
  const headers = instance.answerHeaders;
  if (headers) {
    root.use((_req, res, next) => {
      res.set(headers);
      next();
    });
  }
  mountMetrics(root);
  lifecycle.mountHealth(root);
  root.use(instance.app);
  return root;
}
