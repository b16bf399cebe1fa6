import type { Violation } from '@pf/platform/problems';
import { longerThan } from '@pf/platform/text';
import type { ActiveState } from './model';
import { SKU_MAX_LENGTH } from './products';

/** At most this many SKUs per `validateSkus` call (the edge's `POST /products/validate-skus` bound). */
export const VALIDATE_SKUS_MAX = 1000;

/** The answer for one SKU asked about. */
export interface SkuMatch {
  sku: string;
  /** True when a live (not deleted) product of the team has exactly this SKU. */
  matched: boolean;
  productUuid: string | null;
  activeState: ActiveState | null;
}

/** At most 1000 SKUs, each 1 to 255 characters (a longer or empty one can never be a SKU). */
export function validateSkusViolations(skus: string[]): Violation[] {
  if (skus.length > VALIDATE_SKUS_MAX) return [{ property: 'skus', message: `At most ${VALIDATE_SKUS_MAX} SKUs per request.` }];
  return skus.flatMap((sku, i) =>
    sku.length >= 1 && !longerThan(sku, SKU_MAX_LENGTH)
      ? []
      : [{ property: `skus[${i}]`, message: `A SKU has 1 to ${SKU_MAX_LENGTH} characters.` }],
  );
}

/**
 * One answer per SKU asked, in the order asked (a SKU asked twice is answered twice). Matching is
 * exact: case and whitespace count, as they do when an order line names a SKU.
 */
export function skuMatches(skus: string[], products: { sku: string | null; uuid: string; activeState: ActiveState }[]): SkuMatch[] {
  const bySku = new Map(products.filter((p) => p.sku !== null).map((p) => [p.sku!, p]));
  return skus.map((sku) => {
    const product = bySku.get(sku);
    return product
      ? { sku, matched: true, productUuid: product.uuid, activeState: product.activeState }
      : { sku, matched: false, productUuid: null, activeState: null };
  });
}
