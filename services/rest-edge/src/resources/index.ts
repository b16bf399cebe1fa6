import { getChannel } from './channel/route';
import { ORDER_ROUTES } from './orders/route';
import { getProduct, listProducts } from './products/route';
import type { ResourceRoute } from './resource';
import { listShippingMethods } from './shipping-methods/route';
import { validateSkus } from './sku-validation/route';
import { listStockLevels } from './stock-levels/route';
import { getTeam } from './team/route';
import { testConnection } from './test-connection/route';
import { getToken } from './token/route';
import { WEBHOOK_ROUTES } from './webhooks/route';

/** Every endpoint the edge serves; each must match an operation of the OpenAPI document and vice versa. */
export const RESOURCE_ROUTES: readonly ResourceRoute[] = [
  getChannel,
  getToken,
  getTeam,
  testConnection,
  listProducts,
  getProduct,
  validateSkus,
  listStockLevels,
  listShippingMethods,
  ...ORDER_ROUTES,
  ...WEBHOOK_ROUTES,
];
