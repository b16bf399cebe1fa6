import { runMigrationProcess } from '@pf/platform/service/process';
import { ordersService } from './index';

runMigrationProcess(ordersService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
