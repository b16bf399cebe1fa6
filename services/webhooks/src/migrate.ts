import { runMigrationProcess } from '@pf/platform/service/process';
import { webhooksService } from './index';

runMigrationProcess(webhooksService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
