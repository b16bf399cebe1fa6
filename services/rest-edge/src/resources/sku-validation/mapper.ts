import type { SkuValidationFields } from './operation';

/** One entry of the `POST /products/validate-skus` body's `data` (OpenAPI `SkuValidation`). */
export function toSkuValidation(v: SkuValidationFields) {
  return { sku: v.sku, matched: v.matched, productUuid: v.productUuid, activeState: v.activeState };
}
