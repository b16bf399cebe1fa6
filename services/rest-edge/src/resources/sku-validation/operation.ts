import { defineOperation } from '../../upstream/graphql';

export interface SkuValidationFields {
  sku: string;
  matched: boolean;
  productUuid: string | null;
  activeState: string | null;
}

/** `POST /products/validate-skus`: one answer per SKU given, in the same order (catalog subgraph, through the gateway). */
export const EDGE_VALIDATE_SKUS = defineOperation<{ skus: string[] }, { validateSkus: SkuValidationFields[] }>(`
  query EdgeValidateSkus($skus: [String!]!) {
    validateSkus(skus: $skus) { sku matched productUuid activeState }
  }
`);
