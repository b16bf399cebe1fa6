import { defineOperation } from '../../upstream/graphql';

export interface ShippingMethodFields {
  code: string;
  name: string;
  carrier: string;
  serviceLevel: string;
  tracked: boolean;
  countryCodes: string[];
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
}

/** `GET /shipping-methods`: the team's active methods in order of preference (catalog subgraph, through the gateway). */
export const EDGE_SHIPPING_METHODS = defineOperation<Record<string, never>, { shippingMethods: ShippingMethodFields[] }>(`
  query EdgeShippingMethods {
    shippingMethods { code name carrier serviceLevel tracked countryCodes minDeliveryDays maxDeliveryDays }
  }
`);
