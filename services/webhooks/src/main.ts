import { runServiceProcess } from '@pf/platform/service/process';
import { webhooksService } from './index';

runServiceProcess(webhooksService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
