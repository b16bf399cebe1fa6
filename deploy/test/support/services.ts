import type { ServiceDefinition } from '@pf/platform/service/service';
import { accountsService } from '../../../services/accounts/src/index';
import { catalogService } from '../../../services/catalog/src/index';
import { stockService } from '../../../services/stock/src/index';
import { ordersService } from '../../../services/orders/src/index';
import { webhooksService } from '../../../services/webhooks/src/index';
import { gatewayService } from '../../../gateway/src/index';
import { restEdgeService } from '../../../services/rest-edge/src/index';

/**
 * The services as their runners see them (name, Postgres schema, migrations folder, default
 * port), keyed by deployment name: the deploy checks take these facts from the code.
 */
export const DEFINITIONS: Record<string, ServiceDefinition> = {
  accounts: accountsService,
  catalog: catalogService,
  stock: stockService,
  orders: ordersService,
  webhooks: webhooksService,
  gateway: gatewayService,
  'rest-edge': restEdgeService,
};

/** The services that own a Postgres schema (and so a role, a migration Job and DATABASE_URL). */
export function servicesWithSchema(): { service: string; schema: string; migrationsDir: string }[] {
  return Object.entries(DEFINITIONS)
    .filter(([, d]) => d.schema && d.migrationsDir)
    .map(([service, d]) => ({ service, schema: d.schema!, migrationsDir: d.migrationsDir! }));
}
