import { runMigrationProcess } from '@pf/platform/service/process';
import { catalogService } from './index';

runMigrationProcess(catalogService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
