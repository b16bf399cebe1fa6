import { runMigrationProcess } from '@pf/platform/service/process';
import { stockService } from './index';

runMigrationProcess(stockService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
