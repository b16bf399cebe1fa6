import { runServiceProcess } from '@pf/platform/service/process';
import { stockService } from './index';

runServiceProcess(stockService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
