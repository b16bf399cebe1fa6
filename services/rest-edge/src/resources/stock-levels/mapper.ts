import type { StockLevelFields } from './operation';

/**
 * The stock levels of one feed page as the members of the `data` array (OpenAPI `StockLevel`:
 * `{"sku": ..., "stock": ...}`), comma-separated, without brackets: the streamed body is
 * `{"data":[` + the pages joined by commas + `]}`.
 */
export function stockLevelItems(items: readonly StockLevelFields[]): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const { sku, stock } = items[i]!;
    out += `${i === 0 ? '' : ','}{"sku":${JSON.stringify(sku)},"stock":${JSON.stringify(stock)}}`;
  }
  return out;
}
