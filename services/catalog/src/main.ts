import { runServiceProcess } from '@pf/platform/service/process';
import { catalogService } from './index';

runServiceProcess(catalogService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
