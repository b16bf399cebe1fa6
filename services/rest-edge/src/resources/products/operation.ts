import { defineOperation } from '../../upstream/graphql';

export interface MeasureFields {
  measurement: number;
  unit: string;
}

export interface ProductFields {
  uuid: string;
  sku: string | null;
  name: string;
  activeState: string;
  podEnabled: boolean;
  podApproved: boolean;
  /** Null when the product has none; otherwise each measure or null. */
  dimensions: { weight: MeasureFields | null; length: MeasureFields | null; width: MeasureFields | null; depth: MeasureFields | null } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProductPageFields {
  items: ProductFields[];
  page: number;
  perPage: number;
  total: number;
  lastPage: number;
  from: number | null;
  to: number | null;
}

/** The product members the Channel API shows (catalog subgraph, through the gateway). */
const PRODUCT_FIELDS = `
  fragment EdgeProductFields on Product {
    uuid sku name activeState podEnabled podApproved
    dimensions { weight { measurement unit } length { measurement unit } width { measurement unit } depth { measurement unit } }
    createdAt updatedAt
  }
`;

/** `GET /products`: one numbered page of the team's live products, oldest first, with the total. */
export const EDGE_PRODUCTS = defineOperation<
  { page: number; perPage: number; activeState: string | null },
  { productPage: ProductPageFields }
>(`
  query EdgeProducts($page: Int!, $perPage: Int!, $activeState: String) {
    productPage(page: $page, perPage: $perPage, activeState: $activeState) {
      page perPage total lastPage from to
      items { ...EdgeProductFields }
    }
  }
  ${PRODUCT_FIELDS}
`);

/** `GET /products/{productUuid}`: null for another team's product, a deleted one, or no such product. */
export const EDGE_PRODUCT = defineOperation<{ uuid: string }, { product: ProductFields | null }>(`
  query EdgeProduct($uuid: ID!) {
    product(uuid: $uuid) { ...EdgeProductFields }
  }
  ${PRODUCT_FIELDS}
`);
