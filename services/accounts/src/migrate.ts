import { runMigrationProcess } from '@pf/platform/service/process';
import { accountsService } from './index';

runMigrationProcess(accountsService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
