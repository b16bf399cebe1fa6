import { runServiceProcess } from '@pf/platform/service/process';
import { accountsService } from './index';

runServiceProcess(accountsService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
