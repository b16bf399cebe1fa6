import { runServiceProcess } from '@pf/platform/service/process';
import { gatewayService } from './index';

// The shared production runner: config (JWT_*, PORT default 4000, HOST, SHUTDOWN_TIMEOUT_MS),
// /healthz and /readyz, graceful shutdown. Its event bus is created lazily and the gateway never
// publishes or consumes, so it never connects to Kafka.
runServiceProcess(gatewayService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
