import { runServiceProcess } from '@pf/platform/service/process';
import { ordersService } from './index';

runServiceProcess(ordersService).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
